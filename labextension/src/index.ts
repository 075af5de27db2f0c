/**
 * The Code Mode JupyterLab extension: a side panel over the current notebook's Code Mode
 * runtime (executions, journals, approvals, rollback, snippets, connectors).
 */
import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import {
  ICommandPalette,
  ISessionContextDialogs,
  SessionContextDialogs
} from '@jupyterlab/apputils';
import { INotebookTracker } from '@jupyterlab/notebook';
import { LabIcon } from '@jupyterlab/ui-components';

import { CodeModeModel } from './model';
import { JournalFollower, NotebookBinding } from './session';
import { CodeModeWidget } from './widget';

export const PANEL_ID = 'codemode-panel';

const CODEMODE_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">
  <g class="jp-icon3" fill="#616161">
    <path d="M8.6 6.2 7.2 4.8 0 12l7.2 7.2 1.4-1.4L2.8 12zM15.4 6.2l1.4-1.4L24 12l-7.2 7.2-1.4-1.4 5.8-5.8z"/>
    <circle cx="12" cy="7" r="1.8"/><circle cx="12" cy="12" r="1.8"/><circle cx="12" cy="17" r="1.8"/>
  </g>
</svg>`;

export const codemodeIcon = new LabIcon({
  name: 'codemode-kernel:panel',
  svgstr: CODEMODE_SVG
});

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'codemode-kernel:panel',
  description:
    'The Code Mode side panel: executions, journals, approvals, rollback and snippets.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ILayoutRestorer, ICommandPalette, ISessionContextDialogs],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    restorer: ILayoutRestorer | null,
    palette: ICommandPalette | null,
    dialogs: ISessionContextDialogs | null
  ) => {
    const model = new CodeModeModel();
    const binding = new NotebookBinding(tracker, model);
    // Every open notebook tells its kernel its path: a journal follows renames and moves.
    const follower = new JournalFollower(tracker);
    const sessionDialogs = dialogs ?? new SessionContextDialogs();
    const widget = new CodeModeWidget(model, {
      selectKernel: () => {
        const session = binding.sessionContext;
        if (session) {
          void sessionDialogs.selectKernel(session);
        }
      }
    });
    widget.id = PANEL_ID;
    widget.title.icon = codemodeIcon;
    widget.title.caption = 'Code Mode';
    widget.disposed.connect(() => {
      follower.dispose();
      binding.dispose();
      model.dispose();
    });
    app.shell.add(widget, 'right', { rank: 1000 });
    restorer?.add(widget, PANEL_ID);

    const command = 'codemode:open-panel';
    app.commands.addCommand(command, {
      label: 'Show the Code Mode panel',
      execute: () => app.shell.activateById(PANEL_ID)
    });
    palette?.addItem({ command, category: 'Code Mode' });
  }
};

export default plugin;
