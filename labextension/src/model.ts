/**
 * The state of the Code Mode panel and the requests that change it (no DOM here).
 *
 * The model speaks the protocol of `messages.ts` through an injected `ITransport` (the
 * comm in the browser, a fake in the unit tests) and emits `stateChanged` whenever what
 * the view shows changes. The session binding (`session.ts`) tells it which notebook and
 * kernel it follows and feeds it the messages the comm receives.
 */
import { ISignal, Signal } from '@lumino/signaling';

import { errorText, plural, statusLabel } from './format';
import {
  asKernelMessage,
  IConnectorInfo,
  IDescribeOutput,
  IExecutionDetail,
  IExecutionSummary,
  IPendingAction,
  IReplyData,
  IRequestParams,
  ISearchOutput,
  ISnippetInfo,
  IValue,
  KernelMessage,
  PanelRequest,
  PROTOCOL_VERSION,
  RequestType,
  ValueField
} from './messages';
import { PendingRequests, RequestError } from './requests';

export { RequestError } from './requests';

/** Where the panel stands with the current notebook's kernel. */
export type ConnectionState =
  | 'no-notebook'
  | 'no-kernel'
  | 'not-codemode'
  | 'connecting'
  | 'ready'
  | 'restarting'
  | 'disconnected';

export type Tab = 'executions' | 'snippets' | 'connectors';

/** Sends requests to the kernel; the owner feeds replies to `CodeModeModel.receive`. */
export interface ITransport {
  send(message: PanelRequest): void;
  dispose(): void;
}

export interface INotice {
  id: number;
  kind: 'info' | 'error';
  text: string;
}

export interface IDescribed {
  target: string;
  output: IDescribeOutput | null;
  error: string | null;
}

export interface IModelOptions {
  /** Coalesce refreshes asked for within this many milliseconds (events come in bursts). */
  refreshDelay?: number;
  /** Reads that take longer than this fail (approvals run a whole pass and have no limit). */
  requestTimeout?: number;
  /** Executions to list. */
  limit?: number;
}

const MAX_NOTICES = 3;

export class CodeModeModel {
  constructor(options: IModelOptions = {}) {
    this._refreshDelay = options.refreshDelay ?? 50;
    this._requests = new PendingRequests(options.requestTimeout ?? 30000);
    this._limit = options.limit ?? 50;
  }

  /** Emitted after every change of what the panel shows. */
  get stateChanged(): ISignal<this, void> {
    return this._stateChanged;
  }

  get connection(): ConnectionState {
    return this._connection;
  }
  get notebookName(): string {
    return this._notebookName;
  }
  get kernelName(): string {
    return this._kernelName;
  }
  get runtime(): string {
    return this._runtime;
  }
  get connectors(): readonly string[] {
    return this._connectors;
  }
  /** Why the kernel could not build its runtime (from `hello`), if it could not. */
  get runtimeError(): string | null {
    return this._runtimeError;
  }
  get executions(): readonly IExecutionSummary[] {
    return this._executions;
  }
  get pending(): readonly IPendingAction[] {
    return this._pending;
  }
  get snippets(): readonly ISnippetInfo[] {
    return this._snippets;
  }
  get selectedId(): string | null {
    return this._selectedId;
  }
  /** The journal of the selected execution, once loaded. */
  get detail(): IExecutionDetail | null {
    return this._detail;
  }
  get connectorInfo(): readonly IConnectorInfo[] | null {
    return this._connectorInfo;
  }
  get searchQuery(): string {
    return this._searchQuery;
  }
  get searchResults(): ISearchOutput | null {
    return this._searchResults;
  }
  get described(): IDescribed | null {
    return this._described;
  }
  get notices(): readonly INotice[] {
    return this._notices;
  }
  get tab(): Tab {
    return this._tab;
  }
  /** Is a reload asked for (its timer set) or under way? */
  get refreshing(): boolean {
    return this._refreshTimer !== null || this._refreshing !== null;
  }
  /** True once a snapshot has arrived since the last (re)connection. */
  get loaded(): boolean {
    return this._loaded;
  }
  get isDisposed(): boolean {
    return this._disposed;
  }

  /** Is an action on this key (e.g. `approve:<id>`) waiting for the kernel? */
  isBusy(key: string): boolean {
    return this._busy.has(key);
  }

  /** The whole text of a value, if the user asked for it (see `loadFullValue`). */
  fullValue(
    executionId: string,
    seq: number | null,
    field: ValueField
  ): IValue | null {
    return this._fullValues.get(valueKey(executionId, seq, field)) ?? null;
  }

  // -- following a notebook and its kernel ----------------------------------------------------

  /** The notebook the panel follows (null: none is open). */
  setNotebook(name: string | null): void {
    this._notebookName = name ?? '';
    if (name === null) {
      this.detach('no-notebook');
    } else {
      this._changed();
    }
  }

  /** Follow a Code Mode kernel through `transport`; wait for its `hello`. */
  connect(transport: ITransport, kernelName: string): void {
    this._dropTransport();
    this._transport = transport;
    this._kernelName = kernelName;
    this._resetData();
    this._connection = 'connecting';
    this._changed();
  }

  /** Stop following a kernel, saying why (no kernel, not Code Mode, restarting, ...). */
  detach(state: Exclude<ConnectionState, 'ready'>, kernelName?: string): void {
    this._dropTransport();
    if (kernelName !== undefined) {
      this._kernelName = kernelName;
    }
    if (state !== 'restarting' && state !== 'disconnected') {
      this._resetData();
    }
    this._connection = state;
    this._changed();
  }

  /** The comm closed: the kernel is not a Code Mode kernel (no hello yet) or went away. */
  transportClosed(): void {
    if (this._transport === null) {
      return;
    }
    const state =
      this._connection === 'connecting' ? 'not-codemode' : 'disconnected';
    this.detach(state);
  }

  /** Handle one message the comm received. */
  receive(data: unknown): void {
    const message = asKernelMessage(data);
    if (message === null || this._transport === null) {
      return;
    }
    this._dispatch(message);
  }

  // -- requests --------------------------------------------------------------------------------

  /** Send a request; resolves with the reply's data, rejects with a `RequestError`. */
  request<K extends RequestType>(
    type: K,
    params: IRequestParams[K]
  ): Promise<IReplyData[K]> {
    const transport = this._transport;
    if (transport === null || this._connection !== 'ready') {
      return Promise.reject(
        new RequestError(
          'The panel is not connected to a Code Mode kernel.',
          'NotConnected',
          type
        )
      );
    }
    return this._requests.open(type, requestId =>
      transport.send({ type, request_id: requestId, ...params } as PanelRequest)
    );
  }

  /** Reload the lists (and the selected journal). Concurrent calls share one reload. */
  async refresh(): Promise<void> {
    if (this._refreshing !== null) {
      this._refreshAgain = true;
      return this._refreshing;
    }
    this._refreshing = this._refreshLoop().finally(() => {
      this._refreshing = null;
      this._changed();
    });
    this._changed();
    return this._refreshing;
  }

  /** Ask for a refresh soon; bursts of events become one reload. */
  scheduleRefresh(): void {
    if (this._refreshTimer !== null || this._disposed) {
      return;
    }
    this._refreshTimer = setTimeout(() => {
      this._refreshTimer = null;
      void this.refresh();
    }, this._refreshDelay);
    this._changed();
  }

  /** Show (or with null, hide) the journal of an execution. */
  async select(executionId: string | null): Promise<void> {
    this._selectedId = executionId;
    if (this._detail?.id !== executionId) {
      this._detail = null;
    }
    this._changed();
    if (executionId !== null) {
      await this._loadDetail(executionId);
    }
  }

  setTab(tab: Tab): void {
    this._tab = tab;
    this._changed();
    if (tab === 'connectors' && this._connectorInfo === null) {
      void this.loadConnectors();
    }
  }

  dismissNotice(id: number): void {
    this._notices = this._notices.filter(n => n.id !== id);
    this._changed();
  }

  // -- actions ---------------------------------------------------------------------------------

  /**
   * Approve call #`seq` of a paused execution, the call the panel showed (the cell that paused
   * resumes too). The kernel approves nothing if that call is no longer the pending one (another
   * tab decided it first): the error says so and the refresh shows the call that waits now.
   */
  async approve(executionId: string, seq: number): Promise<boolean> {
    const reply = await this._act(`approve:${executionId}`, () =>
      this.request('approve', { execution_id: executionId, seq })
    );
    if (reply === null) {
      return false;
    }
    if (reply.message) {
      // Approved (or rejected) elsewhere first: say how it ended, as information.
      this._notify('info', reply.message);
    } else if (reply.status === 'error') {
      this._notify(
        'error',
        `Approved, but the execution failed: ${reply.error ?? 'unknown error'}`
      );
    } else if (reply.status === 'paused') {
      this._notify(
        'info',
        `Approved; the execution paused again for ${plural(reply.pending, 'approval')}.`
      );
    } else {
      this._notify(
        'info',
        `Approved; the execution ${statusLabel(reply.status)}.`
      );
    }
    return true;
  }

  /**
   * Reject call #`seq` of a paused execution, the call the panel showed (the execution ends
   * rejected). The kernel rejects nothing if that call is no longer the pending one.
   */
  async reject(executionId: string, seq: number): Promise<boolean> {
    const reply = await this._act(`reject:${executionId}`, () =>
      this.request('reject', { execution_id: executionId, seq })
    );
    if (reply !== null) {
      this._notify(
        'info',
        reply.message ??
          'Rejected; the execution ended without running the call.'
      );
    }
    return reply !== null;
  }

  /** Roll back an execution's applied calls (each method's revert, newest first). */
  async rollback(executionId: string): Promise<boolean> {
    const reply = await this._act(`rollback:${executionId}`, () =>
      this.request('rollback', { execution_id: executionId })
    );
    if (reply === null) {
      return false;
    }
    this._notify(
      'info',
      reply.status === 'rolled_back'
        ? `Rolled back: ${plural(reply.reverted, 'call')} reverted.`
        : 'Nothing was rolled back: no applied call of this execution has a revert.'
    );
    return true;
  }

  async deleteExecution(executionId: string): Promise<boolean> {
    const reply = await this._act(`delete:${executionId}`, () =>
      this.request('delete_execution', { execution_id: executionId })
    );
    if (reply !== null && this._selectedId === executionId) {
      this._selectedId = null;
      this._detail = null;
      this._changed();
    }
    return reply !== null;
  }

  async saveSnippet(
    executionId: string,
    name: string,
    description: string
  ): Promise<ISnippetInfo | null> {
    const snippet = await this._act(`save:${executionId}`, () =>
      this.request('save_snippet', {
        execution_id: executionId,
        name,
        description
      })
    );
    if (snippet !== null) {
      this._notify(
        'info',
        `Saved snippet '${snippet.name}'; run it with codemode.run('${snippet.name}', input).`
      );
    }
    return snippet;
  }

  async deleteSnippet(name: string): Promise<boolean> {
    const reply = await this._act(`delete-snippet:${name}`, () =>
      this.request('delete_snippet', { name })
    );
    return reply !== null;
  }

  async loadConnectors(): Promise<void> {
    const info = await this._quiet(() => this.request('list_connectors', {}));
    if (info !== null) {
      this._connectorInfo = info;
      this._changed();
    }
  }

  /** Rank methods and snippets for a query (an empty query clears the results). */
  async search(query: string): Promise<void> {
    this._searchQuery = query;
    this._changed();
    if (!query.trim()) {
      this._searchResults = null;
      this._changed();
      return;
    }
    const results = await this._quiet(() => this.request('search', { query }));
    // A slower answer to an older query must not replace the newer one.
    if (results !== null && this._searchQuery === query) {
      this._searchResults = results;
      this._changed();
    }
  }

  /** Load the Python declarations of a connector, method or snippet (again: hide them). */
  async describe(target: string): Promise<void> {
    if (this._described?.target === target) {
      this._described = null;
      this._changed();
      return;
    }
    this._described = { target, output: null, error: null };
    this._changed();
    try {
      const output = await this.request('describe', { target });
      if (this._described?.target === target) {
        this._described = { target, output, error: null };
      }
    } catch (error) {
      if (this._described?.target === target) {
        this._described = { target, output: null, error: errorText(error) };
      }
    }
    this._changed();
  }

  /** Fetch the whole text of an abbreviated value. */
  async loadFullValue(
    executionId: string,
    seq: number | null,
    field: ValueField
  ): Promise<IValue | null> {
    const value = await this._quiet(() =>
      this.request('get_value', { execution_id: executionId, seq, field })
    );
    if (value !== null) {
      this._fullValues.set(valueKey(executionId, seq, field), value);
      this._changed();
    }
    return value;
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._dropTransport();
    if (this._refreshTimer !== null) {
      clearTimeout(this._refreshTimer);
      this._refreshTimer = null;
    }
    this._disposed = true;
    Signal.clearData(this);
  }

  // -- internals -------------------------------------------------------------------------------

  private _dispatch(message: KernelMessage): void {
    switch (message.type) {
      case 'hello':
        if (message.protocol !== PROTOCOL_VERSION) {
          this._notify(
            'error',
            `The kernel speaks panel protocol ${message.protocol}, this extension ${PROTOCOL_VERSION}; install matching versions of codemode-kernel and reload the page.`
          );
        }
        this._runtime = message.runtime;
        this._connectors = message.connectors;
        this._runtimeError = message.error ?? null;
        this._connection = 'ready';
        this._changed();
        void this.refresh();
        return;
      case 'reply':
        this._requests.resolve(message.request_id, message.data);
        return;
      case 'error':
        if (
          !this._requests.reject(
            message.request_id,
            new RequestError(message.error, message.error_type, message.request)
          )
        ) {
          // An answer to no request of ours: a malformed message, say so.
          this._notify('error', message.error);
        }
        return;
      case 'event':
        if (
          message.event === 'execution_deleted' &&
          message.execution_id === this._selectedId
        ) {
          this._selectedId = null;
          this._detail = null;
          this._changed();
        }
        if (message.event === 'connectors_changed') {
          this._connectorInfo = null;
          if (this._tab === 'connectors') {
            void this.loadConnectors();
          }
        }
        this.scheduleRefresh();
        return;
    }
  }

  private async _refreshLoop(): Promise<void> {
    do {
      this._refreshAgain = false;
      if (this._connection !== 'ready') {
        return;
      }
      const snapshot = await this._quiet(() =>
        this.request('snapshot', { limit: this._limit })
      );
      if (snapshot === null) {
        // Failed, or answered for the notebook the panel followed before: a refresh asked
        // for meanwhile (the new notebook's hello) still runs.
        continue;
      }
      this._runtime = snapshot.runtime;
      this._connectors = snapshot.connectors;
      this._executions = snapshot.executions;
      this._pending = snapshot.pending;
      this._snippets = snapshot.snippets;
      this._loaded = true;
      this._changed();
      if (this._selectedId !== null) {
        await this._loadDetail(this._selectedId);
      }
    } while (this._refreshAgain);
  }

  private async _loadDetail(executionId: string): Promise<void> {
    try {
      const detail = await this.request('get_execution', {
        execution_id: executionId
      });
      if (this._selectedId === executionId) {
        this._detail = detail;
        this._changed();
      }
    } catch (error) {
      if (this._selectedId !== executionId) {
        return;
      }
      if (
        error instanceof RequestError &&
        error.errorType === 'UnknownExecutionError'
      ) {
        // Deleted or pruned meanwhile: nothing left to show.
        this._selectedId = null;
        this._detail = null;
        this._changed();
      } else {
        this._notify('error', errorText(error));
      }
    }
  }

  /**
   * Run an action, marking it busy; on failure show the kernel's message and return null.
   *
   * An answer that arrives after the panel moved to another notebook (or kernel) is
   * dropped (null, no notice): it belongs to the notebook the action was taken in, and its
   * notice would otherwise show in the other one's panel (issue 16, item 7).
   */
  private async _act<T>(key: string, run: () => Promise<T>): Promise<T | null> {
    if (this._busy.has(key)) {
      return null;
    }
    const generation = this._generation;
    this._busy.add(key);
    this._changed();
    try {
      const reply = await run();
      return generation === this._generation ? reply : null;
    } catch (error) {
      if (generation === this._generation) {
        this._notify('error', errorText(error));
      }
      return null;
    } finally {
      this._busy.delete(key);
      this._changed();
      void this.refresh();
    }
  }

  private async _quiet<T>(run: () => Promise<T>): Promise<T | null> {
    const generation = this._generation;
    try {
      const reply = await run();
      return generation === this._generation ? reply : null;
    } catch (error) {
      if (
        generation === this._generation &&
        !(error instanceof RequestError && error.errorType === 'NotConnected')
      ) {
        this._notify('error', errorText(error));
      }
      return null;
    }
  }

  private _notify(kind: INotice['kind'], text: string): void {
    const notice = { id: ++this._nextNotice, kind, text };
    this._notices = [...this._notices, notice].slice(-MAX_NOTICES);
    this._changed();
  }

  private _dropTransport(): void {
    const transport = this._transport;
    this._transport = null;
    this._requests.failAll(
      'The connection to the kernel closed before it answered.'
    );
    if (transport !== null) {
      try {
        transport.dispose();
      } catch {
        // The kernel may already be gone; nothing to release then.
      }
    }
  }

  /** Forget what the panel showed of the previous notebook or kernel, notices included. */
  private _resetData(): void {
    this._generation++;
    this._notices = [];
    this._runtime = '';
    this._connectors = [];
    this._runtimeError = null;
    this._executions = [];
    this._pending = [];
    this._snippets = [];
    this._selectedId = null;
    this._detail = null;
    this._connectorInfo = null;
    this._searchResults = null;
    this._described = null;
    this._fullValues.clear();
    this._loaded = false;
  }

  private _changed(): void {
    if (!this._disposed) {
      this._stateChanged.emit();
    }
  }

  private _stateChanged = new Signal<this, void>(this);
  private _transport: ITransport | null = null;
  private _requests: PendingRequests;
  private _nextNotice = 0;
  /** Counts the notebooks and kernels followed: answers from an earlier one are dropped. */
  private _generation = 0;
  private _refreshDelay: number;
  private _limit: number;
  private _refreshing: Promise<void> | null = null;
  private _refreshAgain = false;
  private _refreshTimer: ReturnType<typeof setTimeout> | null = null;
  private _disposed = false;

  private _connection: ConnectionState = 'no-notebook';
  private _notebookName = '';
  private _kernelName = '';
  private _runtime = '';
  private _connectors: string[] = [];
  private _runtimeError: string | null = null;
  private _executions: IExecutionSummary[] = [];
  private _pending: IPendingAction[] = [];
  private _snippets: ISnippetInfo[] = [];
  private _selectedId: string | null = null;
  private _detail: IExecutionDetail | null = null;
  private _connectorInfo: IConnectorInfo[] | null = null;
  private _searchQuery = '';
  private _searchResults: ISearchOutput | null = null;
  private _described: IDescribed | null = null;
  private _notices: INotice[] = [];
  private _tab: Tab = 'executions';
  private _busy = new Set<string>();
  private _fullValues = new Map<string, IValue>();
  private _loaded = false;
}

function valueKey(
  executionId: string,
  seq: number | null,
  field: string
): string {
  return `${executionId}/${seq ?? '-'}/${field}`;
}
