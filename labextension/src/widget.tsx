/**
 * The view of the Code Mode panel: React components over `CodeModeModel`.
 *
 * Everything the user sees is derived from the model on each `stateChanged`; every
 * button calls a model method (confirmations and the snippet form come from `dialogs.ts`).
 */
import {
  caretDownIcon,
  caretRightIcon,
  closeIcon,
  ReactWidget,
  refreshIcon,
  UseSignal
} from '@jupyterlab/ui-components';
import * as React from 'react';

import { askSnippet, confirmAction } from './dialogs';
import {
  IConnectorInfo,
  IExecutionDetail,
  IExecutionSummary,
  IJournalEntry,
  IPendingAction,
  ISnippetInfo,
  IValue,
  ValueField
} from './messages';
import {
  canApprove,
  canDelete,
  canRollback,
  canSaveSnippet,
  CodeModeModel,
  displayState,
  formatAge,
  plural,
  statusLabel,
  Tab
} from './model';

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

interface IViewProps {
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
    <div className="jp-CodeModePanel-header">
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

/** Re-render every few seconds so that ages ("12 s ago") stay true. */
function useNow(intervalMs = 5000): number {
  const [now, setNow] = React.useState(Date.now());
  React.useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

function ExecutionsTab({ model }: IViewProps): React.ReactElement {
  const now = useNow();
  if (!model.loaded) {
    return <div className="jp-CodeModePanel-placeholder">Loading…</div>;
  }
  return (
    <>
      {model.pending.length > 0 && (
        <section className="jp-CodeModePanel-pending">
          <h3 className="jp-CodeModePanel-heading">
            Waiting for approval ({model.pending.length})
          </h3>
          {model.pending.map(action => (
            <PendingCard
              key={`${action.execution_id}/${action.seq}`}
              model={model}
              action={action}
            />
          ))}
        </section>
      )}
      {model.executions.length === 0 ? (
        <div className="jp-CodeModePanel-placeholder">
          No executions yet. Run a cell in this notebook: each cell is one
          execution, journaled here.
        </div>
      ) : (
        <ul className="jp-CodeModePanel-executions">
          {model.executions.map(execution => (
            <ExecutionRow
              key={execution.id}
              model={model}
              execution={execution}
              now={now}
            />
          ))}
        </ul>
      )}
    </>
  );
}

function PendingCard(props: {
  model: CodeModeModel;
  action: IPendingAction;
}): React.ReactElement {
  const { model, action } = props;
  const id = action.execution_id;
  const busy = model.isBusy(`approve:${id}`) || model.isBusy(`reject:${id}`);
  return (
    <div className="jp-CodeModePanel-pendingCard" data-execution-id={id}>
      <div className="jp-CodeModePanel-call">
        <span className="jp-CodeModePanel-seq">#{action.seq}</span>
        <code>{action.path}</code>
      </div>
      <ValueView label="arguments" value={action.args} />
      <div className="jp-CodeModePanel-actions">
        <button
          className="jp-CodeModePanel-button jp-mod-accept"
          disabled={busy}
          onClick={() => void model.approve(id)}
        >
          {model.isBusy(`approve:${id}`) ? 'Approving…' : 'Approve'}
        </button>
        <button
          className="jp-CodeModePanel-button jp-mod-reject"
          disabled={busy}
          onClick={() => void model.reject(id, action.seq)}
        >
          Reject
        </button>
        <button
          className="jp-CodeModePanel-link"
          onClick={() => void model.select(id)}
        >
          Show execution
        </button>
      </div>
    </div>
  );
}

function StatusBadge({
  status
}: {
  status: IExecutionSummary['status'];
}): React.ReactElement {
  return (
    <span
      className={`jp-CodeModePanel-badge jp-mod-status-${status}`}
      data-status={status}
    >
      {statusLabel(status)}
    </span>
  );
}

function ExecutionRow(props: {
  model: CodeModeModel;
  execution: IExecutionSummary;
  now: number;
}): React.ReactElement {
  const { model, execution, now } = props;
  const selected = model.selectedId === execution.id;
  const Caret = selected ? caretDownIcon : caretRightIcon;
  return (
    <li
      className={`jp-CodeModePanel-execution${selected ? ' jp-mod-selected' : ''}`}
      data-execution-id={execution.id}
      data-status={execution.status}
    >
      <button
        className="jp-CodeModePanel-executionHead"
        aria-expanded={selected}
        onClick={() => void model.select(selected ? null : execution.id)}
      >
        <Caret.react tag="span" className="jp-CodeModePanel-caret" />
        <StatusBadge status={execution.status} />
        <code
          className="jp-CodeModePanel-firstLine"
          title={execution.first_line}
        >
          {execution.first_line || '(empty)'}
        </code>
        <span
          className="jp-CodeModePanel-age"
          title={new Date(execution.created_at).toLocaleString()}
        >
          {formatAge(execution.created_at, now)}
        </span>
      </button>
      <div className="jp-CodeModePanel-executionMeta">
        {plural(execution.calls, 'call')} ·{' '}
        {plural(execution.passes, 'pass', 'passes')}
        {execution.pending > 0 && ` · ${execution.pending} pending`}
        {execution.error && execution.status !== 'rejected' && (
          <span className="jp-CodeModePanel-errorText" title={execution.error}>
            {' '}
            · {execution.error_type ?? 'Error'}
          </span>
        )}
      </div>
      {selected && <ExecutionDetail model={model} execution={execution} />}
    </li>
  );
}

function ExecutionDetail(props: {
  model: CodeModeModel;
  execution: IExecutionSummary;
}): React.ReactElement {
  const { model, execution } = props;
  const detail = model.detail;
  return (
    <div className="jp-CodeModePanel-detail">
      <ExecutionActions model={model} execution={detail ?? execution} />
      {detail === null ? (
        <div className="jp-CodeModePanel-placeholder">Loading journal…</div>
      ) : (
        <>
          <pre className="jp-CodeModePanel-code">{detail.code}</pre>
          <Outcome model={model} detail={detail} />
          <Journal model={model} detail={detail} />
        </>
      )}
    </div>
  );
}

function ExecutionActions(props: {
  model: CodeModeModel;
  execution: IExecutionSummary;
}): React.ReactElement {
  const { model, execution } = props;
  const id = execution.id;
  const busy = (key: string) => model.isBusy(`${key}:${id}`);
  return (
    <div className="jp-CodeModePanel-actions">
      {canApprove(execution) && (
        <>
          <button
            className="jp-CodeModePanel-button jp-mod-accept"
            disabled={busy('approve') || busy('reject')}
            onClick={() => void model.approve(id)}
          >
            {busy('approve') ? 'Approving…' : 'Approve'}
          </button>
          <button
            className="jp-CodeModePanel-button jp-mod-reject"
            disabled={busy('approve') || busy('reject')}
            onClick={() => void model.reject(id)}
          >
            Reject
          </button>
        </>
      )}
      {canRollback(execution) && (
        <button
          className="jp-CodeModePanel-button"
          disabled={busy('rollback')}
          onClick={async () => {
            const ok = await confirmAction(
              'Roll back this execution?',
              `Each applied call that has a revert is undone, newest first (${plural(execution.revertible, 'applied call')}).`,
              'Roll back'
            );
            if (ok) {
              await model.rollback(id);
            }
          }}
        >
          {busy('rollback') ? 'Rolling back…' : 'Roll back'}
        </button>
      )}
      {canSaveSnippet(execution) && (
        <button
          className="jp-CodeModePanel-button"
          disabled={busy('save')}
          onClick={async () => {
            const answer = await askSnippet(execution.first_line);
            if (answer !== null) {
              await model.saveSnippet(id, answer.name, answer.description);
            }
          }}
        >
          Save as snippet
        </button>
      )}
      {canDelete(execution) && (
        <button
          className="jp-CodeModePanel-button jp-mod-reject"
          disabled={busy('delete')}
          onClick={async () => {
            const ok = await confirmAction(
              'Delete this execution?',
              'Its journal is deleted; applied actions are not undone (roll back first to undo them).',
              'Delete'
            );
            if (ok) {
              await model.deleteExecution(id);
            }
          }}
        >
          Delete
        </button>
      )}
    </div>
  );
}

function Outcome(props: {
  model: CodeModeModel;
  detail: IExecutionDetail;
}): React.ReactElement | null {
  const { model, detail } = props;
  return (
    <div className="jp-CodeModePanel-outcome">
      {detail.result !== null && (
        <ValueView
          label="result"
          value={detail.result}
          full={model.fullValue(detail.id, null, 'result')}
          onLoadAll={() => void model.loadFullValue(detail.id, null, 'result')}
          open
        />
      )}
      {detail.error && (
        <div className="jp-CodeModePanel-errorBox">
          <strong>{detail.error_type ?? 'Error'}:</strong> {detail.error}
        </div>
      )}
      {detail.logs.length > 0 && (
        <details className="jp-CodeModePanel-logs">
          <summary>
            output ({plural(detail.logs.length + detail.logs_omitted, 'line')})
          </summary>
          <pre>
            {detail.logs_omitted > 0 &&
              `… ${detail.logs_omitted} earlier lines omitted\n`}
            {detail.logs.join('\n')}
          </pre>
        </details>
      )}
    </div>
  );
}

function Journal(props: {
  model: CodeModeModel;
  detail: IExecutionDetail;
}): React.ReactElement {
  const { model, detail } = props;
  if (detail.entries.length === 0) {
    return (
      <div className="jp-CodeModePanel-placeholder">
        No connector calls were journaled.
      </div>
    );
  }
  return (
    <ol className="jp-CodeModePanel-journal" aria-label="Journal">
      {detail.entries.map(entry => (
        <JournalEntry
          key={entry.seq}
          model={model}
          detail={detail}
          entry={entry}
        />
      ))}
    </ol>
  );
}

function JournalEntry(props: {
  model: CodeModeModel;
  detail: IExecutionDetail;
  entry: IJournalEntry;
}): React.ReactElement {
  const { model, detail, entry } = props;
  const shown = displayState(entry, detail.passes);
  const load = (field: ValueField) => () =>
    void model.loadFullValue(detail.id, entry.seq, field);
  return (
    <li
      className={`jp-CodeModePanel-entry jp-mod-${shown}`}
      data-seq={entry.seq}
      data-state={shown}
    >
      <div className="jp-CodeModePanel-entryHead">
        <span className="jp-CodeModePanel-seq">#{entry.seq}</span>
        <code className="jp-CodeModePanel-path">
          {entry.step ? `step ${JSON.stringify(entry.method)}` : entry.path}
        </code>
        <span className={`jp-CodeModePanel-state jp-mod-${shown}`}>
          {shown}
        </span>
        <span
          className="jp-CodeModePanel-pass"
          title={
            shown === 'replayed'
              ? `Executed in pass ${entry.pass_number}; later passes replayed the recorded result.`
              : `Pass ${entry.pass_number} made this call.`
          }
        >
          pass {entry.pass_number}
        </span>
        {entry.requires_approval && (
          <span className="jp-CodeModePanel-tag" title="Needs approval">
            approval
          </span>
        )}
      </div>
      <ValueView
        label={entry.step ? 'name' : 'arguments'}
        value={entry.args}
        full={model.fullValue(detail.id, entry.seq, 'args')}
        onLoadAll={load('args')}
      />
      {entry.result !== null && (
        <ValueView
          label={entry.step ? 'value' : 'result'}
          value={entry.result}
          full={model.fullValue(detail.id, entry.seq, 'result')}
          onLoadAll={load('result')}
        />
      )}
      {entry.result === null &&
        entry.ephemeral &&
        entry.state === 'applied' && (
          <div className="jp-CodeModePanel-note">
            result not stored: this method runs again on every pass
          </div>
        )}
      {entry.error && shown !== 'rejected' && (
        <div className="jp-CodeModePanel-errorText">{entry.error}</div>
      )}
    </li>
  );
}

/** A value: its one-line summary, expandable to the text (and to all of it on request). */
export function ValueView(props: {
  label: string;
  value: IValue;
  full?: IValue | null;
  onLoadAll?: () => void;
  open?: boolean;
}): React.ReactElement {
  const { label, value, full, onLoadAll } = props;
  const [open, setOpen] = React.useState(props.open ?? false);
  const shown = full ?? value;
  return (
    <div className="jp-CodeModePanel-value" data-label={label}>
      <button
        className="jp-CodeModePanel-valueHead"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        {open ? (
          <caretDownIcon.react tag="span" className="jp-CodeModePanel-caret" />
        ) : (
          <caretRightIcon.react tag="span" className="jp-CodeModePanel-caret" />
        )}
        <span className="jp-CodeModePanel-valueLabel">{label}</span>
        {!open && (
          <code className="jp-CodeModePanel-summary">{value.summary}</code>
        )}
      </button>
      {open && (
        <>
          <pre className="jp-CodeModePanel-valueText">{shown.text}</pre>
          {shown.truncated && (
            <div className="jp-CodeModePanel-note">
              showing {Math.max(0, shown.text.length - 1).toLocaleString()} of{' '}
              {shown.chars.toLocaleString()} characters
              {onLoadAll && (
                <>
                  {' '}
                  <button className="jp-CodeModePanel-link" onClick={onLoadAll}>
                    Show all
                  </button>
                </>
              )}
            </div>
          )}
        </>
      )}
    </div>
  );
}

function SnippetsTab({ model }: IViewProps): React.ReactElement {
  if (model.snippets.length === 0) {
    return (
      <div className="jp-CodeModePanel-placeholder">
        No snippets yet. Save a completed execution as a snippet to run it again
        with <code>codemode.run(name, input)</code>.
      </div>
    );
  }
  return (
    <ul className="jp-CodeModePanel-snippets">
      {model.snippets.map(snippet => (
        <SnippetCard key={snippet.name} model={model} snippet={snippet} />
      ))}
    </ul>
  );
}

function SnippetCard(props: {
  model: CodeModeModel;
  snippet: ISnippetInfo;
}): React.ReactElement {
  const { model, snippet } = props;
  const preview = snippet.code.text.split('\n').slice(0, 8);
  const more = snippet.code.text.split('\n').length - preview.length;
  return (
    <li className="jp-CodeModePanel-snippet" data-snippet={snippet.name}>
      <div className="jp-CodeModePanel-snippetHead">
        <code className="jp-CodeModePanel-snippetName">{snippet.name}</code>
        {snippet.connectors.map(c => (
          <span key={c} className="jp-CodeModePanel-tag">
            {c}
          </span>
        ))}
        <button
          className="jp-CodeModePanel-button jp-mod-reject jp-mod-small"
          disabled={model.isBusy(`delete-snippet:${snippet.name}`)}
          onClick={async () => {
            const ok = await confirmAction(
              `Delete snippet '${snippet.name}'?`,
              `codemode.run('${snippet.name}', …) will stop working.`,
              'Delete'
            );
            if (ok) {
              await model.deleteSnippet(snippet.name);
            }
          }}
        >
          Delete
        </button>
      </div>
      {snippet.description && (
        <div className="jp-CodeModePanel-description">
          {snippet.description}
        </div>
      )}
      <pre className="jp-CodeModePanel-code">
        {preview.join('\n')}
        {more > 0 && `\n… ${plural(more, 'more line')}`}
      </pre>
    </li>
  );
}

function ConnectorsTab({ model }: IViewProps): React.ReactElement {
  const [query, setQuery] = React.useState(model.searchQuery);
  React.useEffect(() => {
    const timer = setTimeout(() => {
      if (query !== model.searchQuery) {
        void model.search(query);
      }
    }, 200);
    return () => clearTimeout(timer);
  }, [query]);
  const searching = query.trim() !== '' && model.searchResults !== null;
  return (
    <>
      <input
        className="jp-CodeModePanel-search"
        type="search"
        placeholder="Search methods and snippets (e.g. “create an item”)"
        aria-label="Search methods and snippets"
        value={query}
        onChange={event => setQuery(event.target.value)}
      />
      {searching ? (
        <SearchResults model={model} />
      ) : model.connectorInfo === null ? (
        <div className="jp-CodeModePanel-placeholder">Loading connectors…</div>
      ) : model.connectorInfo.length === 0 ? (
        <div className="jp-CodeModePanel-placeholder">
          No connectors are configured. Add them in codemode.toml beside the
          notebook, or with connect(...) in a %%host cell.
        </div>
      ) : (
        <ul className="jp-CodeModePanel-connectors">
          {model.connectorInfo.map(connector => (
            <ConnectorCard
              key={connector.name}
              model={model}
              connector={connector}
            />
          ))}
        </ul>
      )}
    </>
  );
}

function Described(props: {
  model: CodeModeModel;
  target: string;
}): React.ReactElement | null {
  const described = props.model.described;
  if (described === null || described.target !== props.target) {
    return null;
  }
  if (described.error) {
    return <div className="jp-CodeModePanel-errorText">{described.error}</div>;
  }
  if (described.output === null) {
    return <div className="jp-CodeModePanel-placeholder">Loading…</div>;
  }
  return (
    <pre className="jp-CodeModePanel-code jp-CodeModePanel-types">
      {described.output.types}
    </pre>
  );
}

function ConnectorCard(props: {
  model: CodeModeModel;
  connector: IConnectorInfo;
}): React.ReactElement {
  const { model, connector } = props;
  return (
    <li className="jp-CodeModePanel-connector" data-connector={connector.name}>
      <button
        className="jp-CodeModePanel-connectorHead"
        title="Show the Python declarations of this connector"
        onClick={() => void model.describe(connector.name)}
      >
        <code>{connector.name}</code>
        <span className="jp-CodeModePanel-count">
          {plural(connector.methods.length, 'method')}
        </span>
      </button>
      {connector.instructions && (
        <div className="jp-CodeModePanel-description">
          {connector.instructions}
        </div>
      )}
      <Described model={model} target={connector.name} />
      <ul className="jp-CodeModePanel-methods">
        {connector.methods.map(method => (
          <li key={method.name} data-method={method.path}>
            <button
              className="jp-CodeModePanel-method"
              title="Show the Python declaration"
              onClick={() => void model.describe(method.path)}
            >
              <code>.{method.name}()</code>
              {method.requires_approval && (
                <span className="jp-CodeModePanel-tag">approval</span>
              )}
              {method.revertible && (
                <span className="jp-CodeModePanel-tag">revertible</span>
              )}
              <span className="jp-CodeModePanel-description">
                {method.description}
              </span>
            </button>
            <Described model={model} target={method.path} />
          </li>
        ))}
      </ul>
    </li>
  );
}

function SearchResults({ model }: IViewProps): React.ReactElement {
  const output = model.searchResults;
  if (output === null || output.results.length === 0) {
    return (
      <div className="jp-CodeModePanel-placeholder">
        Nothing matches “{model.searchQuery}”.
      </div>
    );
  }
  return (
    <ul className="jp-CodeModePanel-methods">
      {output.results.map(result => (
        <li key={`${result.kind}:${result.path}`} data-method={result.path}>
          <button
            className="jp-CodeModePanel-method"
            onClick={() => void model.describe(result.path)}
          >
            <code>
              {result.kind === 'snippet'
                ? `snippet ${result.path}`
                : result.path}
            </code>
            {result.requires_approval && (
              <span className="jp-CodeModePanel-tag">approval</span>
            )}
            <span className="jp-CodeModePanel-description">
              {result.description}
            </span>
          </button>
          <Described model={model} target={result.path} />
        </li>
      ))}
      {output.truncated && (
        <li className="jp-CodeModePanel-note">
          {output.total - output.results.length} more; refine the query.
        </li>
      )}
    </ul>
  );
}
