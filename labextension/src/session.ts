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
    this._panel?.context.pathChanged.disconnect(this._onPathChanged, this);
    this._panel = panel;
    this._kernel = null;
    if (panel === null) {
      this._model.setNotebook(null);
      return;
    }
    panel.disposed.connect(this._onPanelDisposed, this);
    panel.context.pathChanged.connect(this._onPathChanged, this);
    const session = panel.sessionContext;
    session.kernelChanged.connect(this._onKernelChanged, this);
    session.statusChanged.connect(this._onStatusChanged, this);
    session.connectionStatusChanged.connect(this._onStatusChanged, this);
    this._model.setNotebook(panel.context.path);
    this._model.detach('no-kernel');
    void session.ready.then(() => this._sync());
  }

  /** A rename or move: the panel names the notebook by its new path at once (issue 16). */
  private _onPathChanged(_: unknown, path: string): void {
    this._model.setNotebook(path);
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

/** The comm target on which the kernel learns its notebook's path (`kernel/notebook_channel.py`). */
export const NOTEBOOK_TARGET = 'codemode.notebook';

/** Where the notebook keeps its journal's id: `metadata.codemode.journal`. */
export const METADATA_KEY = 'codemode';

/**
 * Tell each Code Mode kernel which notebook it serves, so its journal follows renames and moves.
 *
 * A kernel learns its notebook's path from its environment when it starts; a rename or move
 * changes the session's path but not that environment. For every open notebook (not just the
 * one the panel follows) this opens a `codemode.notebook` comm to a Code Mode kernel, sends
 * the path, and sends it again with the previous one after every rename or move. The kernel
 * answers with the journal id the notebook keeps in its metadata, so a later kernel finds
 * the journal even if the notebook was renamed while no kernel ran.
 */
export class JournalFollower implements IDisposable {
  constructor(private readonly _tracker: INotebookTracker) {
    _tracker.widgetAdded.connect(this._onAdded, this);
    _tracker.forEach(panel => this._onAdded(_tracker, panel));
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    this._tracker.widgetAdded.disconnect(this._onAdded, this);
    this._links.forEach(link => link.dispose());
    this._links.clear();
  }

  private _onAdded(_: INotebookTracker, panel: NotebookPanel): void {
    const link = new NotebookLink(panel);
    this._links.add(link);
    panel.disposed.connect(() => {
      link.dispose();
      this._links.delete(link);
    });
  }

  private _links = new Set<NotebookLink>();
  private _disposed = false;
}

/** One notebook's path channel to its kernel. */
class NotebookLink implements IDisposable {
  constructor(private readonly _panel: NotebookPanel) {
    this._path = _panel.context.path;
    _panel.context.pathChanged.connect(this._onPathChanged, this);
    _panel.sessionContext.kernelChanged.connect(this._sync, this);
    _panel.sessionContext.statusChanged.connect(this._sync, this);
    _panel.sessionContext.connectionStatusChanged.connect(this._sync, this);
    void _panel.sessionContext.ready.then(() => this._sync());
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    const context = this._panel.context;
    context.pathChanged.disconnect(this._onPathChanged, this);
    const session = this._panel.sessionContext;
    session.kernelChanged.disconnect(this._sync, this);
    session.statusChanged.disconnect(this._sync, this);
    session.connectionStatusChanged.disconnect(this._sync, this);
    this._drop();
  }

  private _onPathChanged(_: unknown, path: string): void {
    const previous = this._path;
    this._path = path;
    if (previous !== path) {
      this._send({ type: 'path', path, previous });
    }
  }

  private _sync(): void {
    if (this._disposed) {
      return;
    }
    const kernel = this._panel.sessionContext.session?.kernel ?? null;
    if (
      kernel === null ||
      !LIVE_STATUSES.has(kernel.status) ||
      kernel.connectionStatus !== 'connected'
    ) {
      // A restart disposes the comm without a close message: open a new one when it is back.
      this._drop();
      return;
    }
    if (
      kernel === this._kernel &&
      this._comm !== null &&
      !this._comm.isDisposed
    ) {
      return;
    }
    this._drop();
    this._kernel = kernel;
    void this._open(kernel);
  }

  private async _open(kernel: Kernel.IKernelConnection): Promise<void> {
    let info: KernelMessage.IInfoReply | null = null;
    if (!isCodeModeKernel(kernel.name, null)) {
      try {
        info = await kernel.info;
      } catch {
        info = null;
      }
    }
    if (
      this._kernel !== kernel ||
      this._disposed ||
      !isCodeModeKernel(kernel.name, info)
    ) {
      return;
    }
    try {
      const comm = kernel.createComm(NOTEBOOK_TARGET);
      (comm as { commsOverSubshells?: string }).commsOverSubshells = 'disabled';
      comm.onMsg = msg => this._receive(msg.content.data);
      comm.onClose = () => {
        this._comm = null;
      };
      this._comm = comm;
      comm
        .open({ type: 'path', path: this._path, previous: null })
        .done.catch(() => undefined);
    } catch (error) {
      this._comm = null;
      console.warn(
        'Code Mode: cannot tell the kernel its notebook path',
        error
      );
    }
  }

  private _send(data: {
    type: 'path';
    path: string;
    previous: string | null;
  }): void {
    const comm = this._comm;
    if (comm === null || comm.isDisposed) {
      return; // the comm opened with the next kernel sends the path then
    }
    try {
      comm.send(data).done.catch(() => undefined);
    } catch {
      this._comm = null;
    }
  }

  /** The kernel's answer: keep its journal id in the notebook's metadata (saved with the notebook). */
  private _receive(data: unknown): void {
    const answer = data as {
      type?: unknown;
      journal_id?: unknown;
      note?: unknown;
    } | null;
    if (
      answer === null ||
      typeof answer !== 'object' ||
      answer.type !== 'journal'
    ) {
      return;
    }
    if (typeof answer.note === 'string' && answer.note) {
      console.warn('Code Mode:', answer.note);
    }
    const id = answer.journal_id;
    const model = this._panel.model;
    if (typeof id !== 'string' || id === '' || model === null) {
      return;
    }
    const current = model.getMetadata(METADATA_KEY) as
      Record<string, unknown> | undefined;
    if (current?.journal !== id) {
      // Kept with the notebook's next save, without marking it modified: a notebook that has
      // history was run, so it is saved anyway, and opening one must not look like an edit.
      const wasDirty = model.dirty;
      model.setMetadata(METADATA_KEY, { ...(current ?? {}), journal: id });
      if (!wasDirty) {
        model.dirty = false;
      }
    }
  }

  private _drop(): void {
    const comm = this._comm;
    this._comm = null;
    this._kernel = null;
    if (comm !== null && !comm.isDisposed) {
      comm.onClose = () => undefined;
      try {
        comm.close().done.catch(() => undefined);
      } catch {
        comm.dispose();
      }
    }
  }

  private _path: string;
  private _kernel: Kernel.IKernelConnection | null = null;
  private _comm: Kernel.IComm | null = null;
  private _disposed = false;
}
