/**
 * Follow the current notebook's kernel and keep the panel's comm to it open.
 *
 * The binding watches the notebook tracker (which notebook is current), the notebook's
 * session (kernel changed, status changed) and connects the model to a Code Mode kernel
 * through one comm (`messages.TARGET_NAME`). A restart disposes the comm on the browser
 * side without a close message, so the binding reconnects when the kernel is back.
 */
import { ISessionContext } from '@jupyterlab/apputils';
import {
  INotebookTracker,
  Notebook,
  NotebookActions,
  NotebookPanel
} from '@jupyterlab/notebook';
import { Kernel, KernelMessage } from '@jupyterlab/services';
import { IDisposable } from '@lumino/disposable';

import { PanelRequest, TARGET_NAME } from './messages';
import { CodeModeModel, ITransport } from './model';

/** Is this kernel a Code Mode kernel? By kernelspec name, else by its kernel_info. */
export function isCodeModeKernel(
  name: string,
  info: KernelMessage.IInfoReply | null
): boolean {
  if (name.toLowerCase().startsWith('codemode')) {
    return true;
  }
  const implementation = info?.implementation ?? '';
  return implementation.toLowerCase().includes('codemode');
}

/** The comm as the model's transport. */
class CommTransport implements ITransport {
  constructor(private readonly _comm: Kernel.IComm) {}

  send(message: PanelRequest): void {
    // A restart may cancel the message's future; the model then times out or reconnects.
    this._comm.send(message as any).done.catch(() => undefined);
  }

  dispose(): void {
    if (this._comm.isDisposed) {
      return;
    }
    this._comm.onClose = () => undefined;
    try {
      this._comm.close().done.catch(() => undefined);
    } catch {
      this._comm.dispose();
    }
  }
}

const LIVE_STATUSES: ReadonlySet<Kernel.Status> = new Set(['idle', 'busy']);

export class NotebookBinding implements IDisposable {
  constructor(
    private readonly _tracker: INotebookTracker,
    private readonly _model: CodeModeModel
  ) {
    _tracker.currentChanged.connect(this._onCurrentChanged, this);
    // The kernel pushes an event for every execution change; a finished cell refreshes
    // too, in case an event was lost (e.g. sent while the comm was reconnecting).
    NotebookActions.executed.connect(this._onCellExecuted, this);
    this._follow(_tracker.currentWidget);
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  /** The session of the notebook the panel follows. */
  get sessionContext(): ISessionContext | null {
    return this._panel?.sessionContext ?? null;
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    this._tracker.currentChanged.disconnect(this._onCurrentChanged, this);
    NotebookActions.executed.disconnect(this._onCellExecuted, this);
    this._follow(null);
  }

  private _onCellExecuted(_: unknown, args: { notebook: Notebook }): void {
    if (args.notebook === this._panel?.content) {
      this._model.scheduleRefresh();
    }
  }

  private _onCurrentChanged(
    _: INotebookTracker,
    panel: NotebookPanel | null
  ): void {
    // Keep following the last notebook when focus moves to a non-notebook widget.
    if (panel !== null && panel !== this._panel) {
      this._follow(panel);
    }
  }

  private _follow(panel: NotebookPanel | null): void {
    const old = this._panel?.sessionContext;
    if (old) {
      old.kernelChanged.disconnect(this._onKernelChanged, this);
      old.statusChanged.disconnect(this._onStatusChanged, this);
      old.connectionStatusChanged.disconnect(this._onStatusChanged, this);
    }
    this._panel?.disposed.disconnect(this._onPanelDisposed, this);
    this._panel = panel;
    this._kernel = null;
    if (panel === null) {
      this._model.setNotebook(null);
      return;
    }
    panel.disposed.connect(this._onPanelDisposed, this);
    const session = panel.sessionContext;
    session.kernelChanged.connect(this._onKernelChanged, this);
    session.statusChanged.connect(this._onStatusChanged, this);
    session.connectionStatusChanged.connect(this._onStatusChanged, this);
    this._model.setNotebook(panel.context.path);
    this._model.detach('no-kernel');
    void session.ready.then(() => this._sync());
  }

  private _onPanelDisposed(): void {
    const next = this._tracker.currentWidget;
    this._follow(next && next !== this._panel ? next : null);
  }

  private _onKernelChanged(): void {
    this._kernel = null;
    this._sync();
  }

  private _onStatusChanged(): void {
    this._sync();
  }

  /** Bring the model in line with the followed kernel's current state. */
  private _sync(): void {
    const panel = this._panel;
    if (panel === null || this._disposed) {
      return;
    }
    const session = panel.sessionContext;
    const kernel = session.session?.kernel ?? null;
    if (kernel === null) {
      this._kernel = null;
      this._model.detach('no-kernel', '');
      return;
    }
    const displayName = session.kernelDisplayName;
    const status = kernel.status;
    if (status === 'restarting' || status === 'autorestarting') {
      this._kernel = null;
      this._model.detach('restarting', displayName);
      return;
    }
    if (status === 'dead') {
      this._kernel = null;
      this._model.detach('disconnected', displayName);
      return;
    }
    if (
      !LIVE_STATUSES.has(status) ||
      kernel.connectionStatus !== 'connected' ||
      this._kernel === kernel
    ) {
      return;
    }
    this._kernel = kernel;
    void this._connect(kernel, displayName);
  }

  private async _connect(
    kernel: Kernel.IKernelConnection,
    displayName: string
  ): Promise<void> {
    let info: KernelMessage.IInfoReply | null = null;
    if (!isCodeModeKernel(kernel.name, null)) {
      try {
        info = await kernel.info;
      } catch {
        info = null;
      }
    }
    if (this._kernel !== kernel) {
      return; // the kernel changed while we asked it
    }
    if (!isCodeModeKernel(kernel.name, info)) {
      this._model.detach('not-codemode', displayName);
      return;
    }
    let comm: Kernel.IComm;
    try {
      comm = kernel.createComm(TARGET_NAME);
    } catch (error) {
      this._kernel = null;
      this._model.detach('disconnected', displayName);
      console.warn('Code Mode panel: cannot open a comm to the kernel', error);
      return;
    }
    // Keep this comm on the main shell. JupyterLab >= 4.4 sends comm messages over a
    // per-target kernel subshell by default, and after a kernel restart it may reuse the
    // dead kernel's subshell id, which the new kernel drops ("Unknown subshell_id"). The
    // kernel serves panel requests concurrently with a running cell anyway.
    (comm as { commsOverSubshells?: string }).commsOverSubshells = 'disabled';
    comm.onMsg = msg => this._model.receive(msg.content.data);
    // A kernel that closes the comm has no panel target (or dropped it): do not retry
    // until the kernel restarts or changes, which reset `_kernel`.
    comm.onClose = () => this._model.transportClosed();
    this._model.connect(new CommTransport(comm), displayName);
    try {
      comm.open({}).done.catch(() => undefined);
    } catch {
      this._kernel = null;
      this._model.detach('disconnected', displayName);
    }
  }

  private _panel: NotebookPanel | null = null;
  private _kernel: Kernel.IKernelConnection | null = null;
  private _disposed = false;
}
