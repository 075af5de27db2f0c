/**
 * The view of the Code Mode panel: React components over `CodeModeModel`.
 *
 * Everything the user sees is derived from the model on each `stateChanged`; every
 * button calls a model method (confirmations and the snippet form come from `dialogs.ts`).
 */
import {
  closeIcon,
  ReactWidget,
  refreshIcon,
  UseSignal
} from '@jupyterlab/ui-components';
import * as React from 'react';

import { ConnectorsTab, SnippetsTab } from './catalog';
import { ExecutionsTab } from './executions';
import { CodeModeModel, Tab } from './model';

/** What the view may ask of the application (not of the kernel). */
export interface IPanelActions {
  /** Open the kernel chooser of the followed notebook. */
  selectKernel(): void;
}

export class CodeModeWidget extends ReactWidget {
  constructor(
    readonly model: CodeModeModel,
    private readonly _actions: IPanelActions
  ) {
    super();
    this.addClass('jp-CodeModePanel');
  }

  protected render(): React.ReactElement {
    return (
      <UseSignal signal={this.model.stateChanged}>
        {() => <PanelView model={this.model} actions={this._actions} />}
      </UseSignal>
    );
  }
}

export interface IViewProps {
  model: CodeModeModel;
}

function PanelView(props: {
  model: CodeModeModel;
  actions: IPanelActions;
}): React.ReactElement {
  const { model, actions } = props;
  return (
    <>
      <Header model={model} />
      <Notices model={model} />
      {model.connection === 'ready' ? (
        <Body model={model} />
      ) : (
        <EmptyState model={model} actions={actions} />
      )}
    </>
  );
}

function Header({ model }: IViewProps): React.ReactElement {
  const live = model.connection === 'ready';
  return (
    <div
      className="jp-CodeModePanel-header"
      data-refresh={model.refreshing ? 'busy' : 'idle'}
    >
      <div className="jp-CodeModePanel-title">
        <span className="jp-CodeModePanel-titleText">Code Mode</span>
        <span
          className={`jp-CodeModePanel-dot jp-mod-${model.connection}`}
          title={`Connection: ${model.connection}`}
        />
        {live && (
          <button
            className="jp-CodeModePanel-iconButton"
            title="Refresh"
            aria-label="Refresh"
            onClick={() => void model.refresh()}
          >
            <refreshIcon.react tag="span" />
          </button>
        )}
      </div>
      {model.notebookName && (
        <div className="jp-CodeModePanel-subtitle" title={model.notebookName}>
          {model.notebookName}
          {live && model.runtime && ` · runtime ${model.runtime}`}
          {live &&
            model.connectors.length > 0 &&
            ` · ${model.connectors.join(', ')}`}
        </div>
      )}
      {live && model.runtimeError && (
        <div className="jp-CodeModePanel-error">
          The kernel could not build its runtime: {model.runtimeError}
        </div>
      )}
    </div>
  );
}

function Notices({ model }: IViewProps): React.ReactElement | null {
  if (model.notices.length === 0) {
    return null;
  }
  return (
    <div className="jp-CodeModePanel-notices">
      {model.notices.map(notice => (
        <div
          key={notice.id}
          className={`jp-CodeModePanel-notice jp-mod-${notice.kind}`}
          role={notice.kind === 'error' ? 'alert' : 'status'}
        >
          <span>{notice.text}</span>
          <button
            className="jp-CodeModePanel-iconButton"
            title="Dismiss"
            aria-label="Dismiss"
            onClick={() => model.dismissNotice(notice.id)}
          >
            <closeIcon.react tag="span" />
          </button>
        </div>
      ))}
    </div>
  );
}

function EmptyState(props: {
  model: CodeModeModel;
  actions: IPanelActions;
}): React.ReactElement {
  const { model, actions } = props;
  let title: string;
  let text: string;
  let chooseKernel = false;
  switch (model.connection) {
    case 'no-notebook':
      title = 'No notebook';
      text =
        'Open a notebook that runs the Code Mode kernel to see its executions, journals, approvals and snippets here.';
      break;
    case 'no-kernel':
      title = 'No kernel';
      text =
        'This notebook has no running kernel. Choose the Code Mode kernel to use this panel.';
      chooseKernel = true;
      break;
    case 'not-codemode':
      title = 'Not a Code Mode kernel';
      text = `This notebook runs ${model.kernelName ? `“${model.kernelName}”` : 'another kernel'}. The panel shows Code Mode executions; switch the notebook to the Code Mode kernel to use it.`;
      chooseKernel = true;
      break;
    case 'connecting':
      title = 'Connecting…';
      text = 'Waiting for the Code Mode kernel to answer.';
      break;
    case 'restarting':
      title = 'Kernel restarting…';
      text = 'The panel reconnects when the kernel is back.';
      break;
    default:
      title = 'Disconnected';
      text =
        'The connection to the kernel closed. Restart or reconnect the kernel to continue.';
  }
  return (
    <div className="jp-CodeModePanel-empty" data-state={model.connection}>
      <div className="jp-CodeModePanel-emptyTitle">{title}</div>
      <p>{text}</p>
      {chooseKernel && (
        <button
          className="jp-CodeModePanel-button"
          onClick={() => actions.selectKernel()}
        >
          Select kernel…
        </button>
      )}
    </div>
  );
}

const TABS: [Tab, string][] = [
  ['executions', 'Executions'],
  ['snippets', 'Snippets'],
  ['connectors', 'Connectors']
];

function Body({ model }: IViewProps): React.ReactElement {
  const counts: Record<Tab, number | null> = {
    executions: model.executions.length,
    snippets: model.snippets.length,
    connectors: model.connectors.length
  };
  return (
    <div className="jp-CodeModePanel-body">
      <div className="jp-CodeModePanel-tabs" role="tablist">
        {TABS.map(([tab, label]) => (
          <button
            key={tab}
            role="tab"
            aria-selected={model.tab === tab}
            data-tab={tab}
            className={`jp-CodeModePanel-tab${model.tab === tab ? ' jp-mod-active' : ''}`}
            onClick={() => model.setTab(tab)}
          >
            {label}
            {counts[tab] !== null && (
              <span className="jp-CodeModePanel-count">{counts[tab]}</span>
            )}
          </button>
        ))}
      </div>
      <div className="jp-CodeModePanel-content">
        {model.tab === 'executions' && <ExecutionsTab model={model} />}
        {model.tab === 'snippets' && <SnippetsTab model={model} />}
        {model.tab === 'connectors' && <ConnectorsTab model={model} />}
      </div>
    </div>
  );
}
