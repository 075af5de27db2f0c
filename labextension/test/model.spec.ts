/**
 * The panel model, driven through a fake transport (the comm is the network edge).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import {
  asKernelMessage,
  IExecutionSummary,
  IJournalEntry,
  ISnapshot,
  IValue,
  PanelRequest,
  PROTOCOL_VERSION,
  REQUEST_PARAMS
} from '../src/messages';
import {
  canApprove,
  canDelete,
  canRollback,
  canSaveSnippet,
  displayState,
  formatAge,
  pendingCall,
  plural
} from '../src/format';
import { CodeModeModel, ITransport, RequestError } from '../src/model';

class FakeTransport implements ITransport {
  sent: PanelRequest[] = [];
  disposed = false;

  send(message: PanelRequest): void {
    this.sent.push(message);
  }

  dispose(): void {
    this.disposed = true;
  }

  ofType(type: string): PanelRequest[] {
    return this.sent.filter(m => m.type === type);
  }

  last(type: string): PanelRequest {
    const found = this.ofType(type);
    if (found.length === 0) {
      throw new Error(`no ${type} request was sent`);
    }
    return found[found.length - 1];
  }
}

const value = (text: string): IValue => ({
  summary: text,
  text,
  chars: text.length,
  truncated: false
});

function execution(
  id: string,
  status: IExecutionSummary['status'],
  extra: Partial<IExecutionSummary> = {}
): IExecutionSummary {
  return {
    id,
    status,
    first_line: `code of ${id}`,
    created_at: 1000,
    updated_at: 1000,
    passes: 1,
    calls: 1,
    pending: status === 'paused' ? 1 : 0,
    revertible: status === 'paused' ? 0 : 1,
    can_rollback: status !== 'paused',
    error: null,
    error_type: null,
    connectors: ['shop'],
    ...extra
  };
}

function snapshot(executions: IExecutionSummary[]): ISnapshot {
  return {
    runtime: 'default',
    connectors: ['shop'],
    executions,
    pending: executions
      .filter(e => e.status === 'paused')
      .map(e => ({
        execution_id: e.id,
        seq: 1,
        connector: 'shop',
        method: 'create_item',
        path: 'shop.create_item',
        args: value('{"title": "x"}')
      })),
    snippets: []
  };
}

function entry(extra: Partial<IJournalEntry>): IJournalEntry {
  return {
    seq: 0,
    connector: 'shop',
    method: 'list_items',
    path: 'shop.list_items',
    step: false,
    args: value('{}'),
    result: value('[]'),
    state: 'applied',
    error: null,
    pass_number: 1,
    requires_approval: false,
    ephemeral: false,
    created_at: 0,
    updated_at: 0,
    ...extra
  };
}

/** Let pending promise callbacks run. */
const settle = () => new Promise(resolve => setTimeout(resolve, 0));

describe('CodeModeModel', () => {
  let model: CodeModeModel;
  let transport: FakeTransport;
  let changes: number;

  const reply = (request: PanelRequest, data: unknown) =>
    model.receive({
      type: 'reply',
      request_id: request.request_id,
      request: request.type,
      data
    });
  const fail = (request: PanelRequest, error: string, errorType: string) =>
    model.receive({
      type: 'error',
      request_id: request.request_id,
      request: request.type,
      error,
      error_type: errorType
    });
  const hello = () =>
    model.receive({
      type: 'hello',
      protocol: PROTOCOL_VERSION,
      runtime: 'default',
      connectors: ['shop']
    });

  async function ready(executions: IExecutionSummary[] = []): Promise<void> {
    model.setNotebook('analysis.ipynb');
    model.connect(transport, 'Code Mode');
    hello();
    reply(transport.last('snapshot'), snapshot(executions));
    await settle();
  }

  beforeEach(() => {
    model = new CodeModeModel({ refreshDelay: 0, requestTimeout: 1000 });
    transport = new FakeTransport();
    changes = 0;
    model.stateChanged.connect(() => {
      changes++;
    });
  });

  afterEach(() => {
    model.dispose();
    vi.useRealTimers();
  });

  it('starts without a notebook', () => {
    expect(model.connection).toBe('no-notebook');
    expect(model.executions).toEqual([]);
  });

  it('connects on hello and loads a snapshot', async () => {
    model.setNotebook('analysis.ipynb');
    model.connect(transport, 'Code Mode');
    expect(model.connection).toBe('connecting');
    expect(transport.sent).toEqual([]);

    hello();
    expect(model.connection).toBe('ready');
    expect(model.runtime).toBe('default');
    const request = transport.last('snapshot');
    expect(request).toEqual({
      type: 'snapshot',
      request_id: request.request_id,
      limit: 50
    });

    const before = changes;
    reply(
      request,
      snapshot([execution('B', 'paused'), execution('A', 'completed')])
    );
    await settle();
    expect(model.loaded).toBe(true);
    expect(model.executions.map(e => e.id)).toEqual(['B', 'A']);
    expect(model.pending.map(p => p.execution_id)).toEqual(['B']);
    expect(changes).toBeGreaterThan(before);
  });

  it('ignores data that is not a kernel message', async () => {
    await ready();
    const before = changes;
    model.receive({ type: 'bogus' });
    model.receive('hello');
    model.receive(null);
    expect(changes).toBe(before);
  });

  it('reports a protocol mismatch', () => {
    model.setNotebook('a.ipynb');
    model.connect(transport, 'Code Mode');
    model.receive({
      type: 'hello',
      protocol: 99,
      runtime: 'r',
      connectors: []
    });
    expect(model.notices[0].kind).toBe('error');
    expect(model.notices[0].text).toContain('protocol 99');
  });

  it('shows the runtime error the kernel reports in hello', () => {
    model.setNotebook('a.ipynb');
    model.connect(transport, 'Code Mode');
    model.receive({
      type: 'hello',
      protocol: PROTOCOL_VERSION,
      runtime: '',
      connectors: [],
      error: 'ConfigurationError: bad codemode.toml'
    });
    expect(model.runtimeError).toBe('ConfigurationError: bad codemode.toml');
  });

  it('loads the journal of the selected execution', async () => {
    await ready([execution('A', 'completed')]);
    const selecting = model.select('A');
    const request = transport.last('get_execution');
    expect(request).toMatchObject({ execution_id: 'A' });
    reply(request, {
      ...execution('A', 'completed'),
      code: 'x',
      result: null,
      logs: [],
      logs_omitted: 0,
      entries: []
    });
    await selecting;
    expect(model.detail?.id).toBe('A');
    expect(model.selectedId).toBe('A');
  });

  it('drops a journal that arrives after another execution was selected', async () => {
    await ready([execution('A', 'completed'), execution('B', 'completed')]);
    const first = model.select('A');
    const requestA = transport.last('get_execution');
    const second = model.select('B');
    const requestB = transport.last('get_execution');
    reply(requestA, {
      ...execution('A', 'completed'),
      code: '',
      result: null,
      logs: [],
      logs_omitted: 0,
      entries: []
    });
    await first;
    expect(model.detail).toBeNull();
    reply(requestB, {
      ...execution('B', 'completed'),
      code: '',
      result: null,
      logs: [],
      logs_omitted: 0,
      entries: []
    });
    await second;
    expect(model.detail?.id).toBe('B');
  });

  it('approves through the kernel, marks the action busy, and refreshes', async () => {
    await ready([execution('P', 'paused')]);
    const approving = model.approve('P', 1);
    expect(model.isBusy('approve:P')).toBe(true);
    const request = transport.last('approve');
    expect(request).toMatchObject({
      type: 'approve',
      execution_id: 'P',
      seq: 1
    });
    const snapshotsBefore = transport.ofType('snapshot').length;
    reply(request, {
      execution_id: 'P',
      status: 'completed',
      error: null,
      pending: 0
    });
    expect(await approving).toBe(true);
    expect(model.isBusy('approve:P')).toBe(false);
    expect(model.notices.at(-1)?.text).toBe(
      'Approved; the execution completed.'
    );
    expect(transport.ofType('snapshot').length).toBe(snapshotsBefore + 1);
  });

  it('says when an approved execution pauses again or fails', async () => {
    await ready([execution('P', 'paused')]);
    let approving = model.approve('P', 1);
    reply(transport.last('approve'), {
      execution_id: 'P',
      status: 'paused',
      error: null,
      pending: 1
    });
    await approving;
    expect(model.notices.at(-1)?.text).toBe(
      'Approved; the execution paused again for 1 approval.'
    );
    approving = model.approve('P', 1);
    reply(transport.last('approve'), {
      execution_id: 'P',
      status: 'error',
      error: 'KeyError: 3',
      pending: 0
    });
    await approving;
    expect(model.notices.at(-1)).toMatchObject({
      kind: 'error',
      text: 'Approved, but the execution failed: KeyError: 3'
    });
  });

  it('says how an execution decided elsewhere ended, as information', async () => {
    await ready([execution('P', 'paused')]);
    const approving = model.approve('P', 1);
    reply(transport.last('approve'), {
      execution_id: 'P',
      status: 'error',
      error: null,
      pending: 0,
      message:
        'Already approved: execution P ran on after its approval and then failed.'
    });
    expect(await approving).toBe(true);
    expect(model.notices.at(-1)).toEqual(
      expect.objectContaining({
        kind: 'info',
        text: 'Already approved: execution P ran on after its approval and then failed.'
      })
    );
  });

  it('says how an execution decided elsewhere ended when a late Reject arrives', async () => {
    await ready([execution('P', 'paused')]);
    const rejecting = model.reject('P', 0);
    reply(transport.last('reject'), {
      execution_id: 'P',
      status: 'completed',
      message:
        'Too late to reject: execution P was already approved and completed.'
    });
    expect(await rejecting).toBe(true);
    expect(model.notices.at(-1)).toEqual(
      expect.objectContaining({
        kind: 'info',
        text: 'Too late to reject: execution P was already approved and completed.'
      })
    );
  });

  it('refuses, says why and refreshes when the call it named was decided elsewhere', async () => {
    await ready([execution('P', 'paused')]);
    const approving = model.approve('P', 0);
    const request = transport.last('approve');
    expect(request).toMatchObject({ execution_id: 'P', seq: 0 });
    const snapshotsBefore = transport.ofType('snapshot').length;
    const why =
      'Call #0 (shop.create_item) is not pending any more: it was already decided, so nothing was approved. ' +
      'The execution is now paused on call #1 (shop.create_item).';
    fail(request, why, 'InvalidStateError');
    expect(await approving).toBe(false);
    expect(model.notices.at(-1)).toMatchObject({ kind: 'error', text: why });
    // The refresh brings the call that waits now, for the person to decide on.
    expect(transport.ofType('snapshot').length).toBe(snapshotsBefore + 1);
    reply(transport.last('snapshot'), snapshot([execution('P', 'paused')]));
    await settle();
    expect(model.pending.map(p => p.seq)).toEqual([1]);
  });

  it('ignores a second click while the first approval runs', async () => {
    await ready([execution('P', 'paused')]);
    const first = model.approve('P', 1);
    expect(await model.approve('P', 1)).toBe(false);
    expect(transport.ofType('approve')).toHaveLength(1);
    reply(transport.last('approve'), {
      execution_id: 'P',
      status: 'completed',
      error: null,
      pending: 0
    });
    await first;
  });

  it('shows the kernel error of a refused action', async () => {
    await ready([execution('A', 'completed')]);
    const rolling = model.rollback('A');
    fail(
      transport.last('rollback'),
      "Cannot roll back execution 'A': it is 'paused'",
      'InvalidStateError'
    );
    expect(await rolling).toBe(false);
    expect(model.notices.at(-1)).toMatchObject({
      kind: 'error',
      text: "Cannot roll back execution 'A': it is 'paused'"
    });
  });

  it('reports how many calls a rollback reverted, or that none could be', async () => {
    await ready([execution('A', 'completed')]);
    let rolling = model.rollback('A');
    reply(transport.last('rollback'), {
      execution_id: 'A',
      status: 'rolled_back',
      reverted: 2
    });
    await rolling;
    expect(model.notices.at(-1)?.text).toBe('Rolled back: 2 calls reverted.');
    rolling = model.rollback('A');
    reply(transport.last('rollback'), {
      execution_id: 'A',
      status: 'completed',
      reverted: 0
    });
    await rolling;
    expect(model.notices.at(-1)?.text).toContain('Nothing was rolled back');
  });

  it('rejects a request with the kernel error type', async () => {
    await ready();
    const asking = model.request('describe', { target: 'nope' });
    fail(transport.last('describe'), "nothing named 'nope'", 'LookupError');
    await expect(asking).rejects.toMatchObject({
      errorType: 'LookupError',
      message: "nothing named 'nope'"
    });
    await expect(asking).rejects.toBeInstanceOf(RequestError);
  });

  it('refuses requests when not connected', async () => {
    await expect(model.request('snapshot', {})).rejects.toMatchObject({
      errorType: 'NotConnected'
    });
  });

  it('coalesces a burst of events into one refresh', async () => {
    await ready([execution('A', 'running')]);
    const before = transport.ofType('snapshot').length;
    for (const event of [
      'execution_started',
      'execution_changed',
      'execution_changed'
    ]) {
      model.receive({ type: 'event', event, execution_id: 'A' });
    }
    await new Promise(resolve => setTimeout(resolve, 5));
    expect(transport.ofType('snapshot').length).toBe(before + 1);
  });

  it('says it is refreshing from an event until the reload has answered', async () => {
    await ready([execution('A', 'paused')]);
    expect(model.refreshing).toBe(false);
    const before = transport.ofType('snapshot').length;
    model.receive({
      type: 'event',
      event: 'execution_changed',
      execution_id: 'A'
    });
    expect(model.refreshing).toBe(true); // the timer is set: a reload will come
    await new Promise(resolve => setTimeout(resolve, 5));
    expect(transport.ofType('snapshot').length).toBe(before + 1);
    expect(model.refreshing).toBe(true); // asked, not answered
    reply(transport.last('snapshot'), snapshot([execution('A', 'completed')]));
    await settle();
    expect(model.refreshing).toBe(false);
    expect(model.executions[0].status).toBe('completed');
  });

  it('refreshes once more when asked during a refresh', async () => {
    await ready();
    const first = model.refresh();
    const second = model.refresh();
    expect(transport.ofType('snapshot')).toHaveLength(2);
    reply(transport.last('snapshot'), snapshot([execution('A', 'completed')]));
    await settle();
    expect(transport.ofType('snapshot')).toHaveLength(3);
    reply(
      transport.last('snapshot'),
      snapshot([execution('B', 'completed'), execution('A', 'completed')])
    );
    await Promise.all([first, second]);
    expect(model.executions.map(e => e.id)).toEqual(['B', 'A']);
  });

  it('forgets the selection when its execution is deleted elsewhere', async () => {
    await ready([execution('A', 'completed')]);
    void model.select('A');
    model.receive({
      type: 'event',
      event: 'execution_deleted',
      execution_id: 'A'
    });
    expect(model.selectedId).toBeNull();
  });

  it('treats a comm closed before hello as a kernel without the panel target', () => {
    model.setNotebook('a.ipynb');
    model.connect(transport, 'Python 3');
    model.transportClosed();
    expect(model.connection).toBe('not-codemode');
    expect(model.kernelName).toBe('Python 3');
    expect(transport.disposed).toBe(true);
  });

  it('fails outstanding requests when the comm closes after hello', async () => {
    await ready();
    const asking = model.request('list_connectors', {});
    model.transportClosed();
    expect(model.connection).toBe('disconnected');
    await expect(asking).rejects.toMatchObject({ errorType: 'NotConnected' });
  });

  it('keeps the lists while the kernel restarts, and clears them for another kernel', async () => {
    await ready([execution('A', 'completed')]);
    model.detach('restarting');
    expect(model.connection).toBe('restarting');
    expect(model.executions).toHaveLength(1);
    model.detach('not-codemode', 'Python 3');
    expect(model.executions).toHaveLength(0);
    expect(model.kernelName).toBe('Python 3');
  });

  it('reconnects after a restart and reloads', async () => {
    await ready([execution('A', 'completed')]);
    model.detach('restarting');
    const next = new FakeTransport();
    model.connect(next, 'Code Mode');
    model.receive({
      type: 'hello',
      protocol: PROTOCOL_VERSION,
      runtime: 'default',
      connectors: ['shop']
    });
    expect(next.ofType('snapshot')).toHaveLength(1);
    expect(model.connection).toBe('ready');
  });

  it('times out reads but not approvals', async () => {
    vi.useFakeTimers();
    await (async () => {
      model.setNotebook('a.ipynb');
      model.connect(transport, 'Code Mode');
      hello();
    })();
    const reading = model.request('list_connectors', {});
    const approving = model.request('approve', { execution_id: 'P', seq: 1 });
    vi.advanceTimersByTime(1500);
    await expect(reading).rejects.toMatchObject({ errorType: 'Timeout' });
    let approved = false;
    void approving.then(() => {
      approved = true;
    });
    reply(transport.last('approve'), {
      execution_id: 'P',
      status: 'completed',
      error: null,
      pending: 0
    });
    await vi.runAllTimersAsync();
    expect(approved).toBe(true);
  });

  it('keeps the newest search results only', async () => {
    await ready();
    const older = model.search('items');
    const newer = model.search('create');
    const [first, second] = transport.ofType('search');
    reply(second, { results: [], total: 0, truncated: false });
    await newer;
    reply(first, {
      results: [{ path: 'shop.list_items' }],
      total: 1,
      truncated: false
    });
    await older;
    expect(model.searchQuery).toBe('create');
    expect(model.searchResults?.total).toBe(0);
  });

  it('toggles the declarations of a method', async () => {
    await ready();
    const describing = model.describe('shop.create_item');
    reply(transport.last('describe'), {
      path: 'shop.create_item',
      description: 'Create',
      requires_approval: true,
      types: 'def create_item(*, title: str) -> Any: ...',
      kind: 'method'
    });
    await describing;
    expect(model.described?.output?.types).toContain('def create_item');
    await model.describe('shop.create_item');
    expect(model.described).toBeNull();
  });

  it('keeps the whole text of a value once fetched', async () => {
    await ready();
    const loading = model.loadFullValue('A', 0, 'args');
    expect(transport.last('get_value')).toMatchObject({
      execution_id: 'A',
      seq: 0,
      field: 'args'
    });
    reply(transport.last('get_value'), {
      ...value('x'.repeat(5000)),
      execution_id: 'A',
      seq: 0,
      field: 'args'
    });
    await loading;
    expect(model.fullValue('A', 0, 'args')?.chars).toBe(5000);
    expect(model.fullValue('A', 0, 'result')).toBeNull();
  });

  it('loads connectors when their tab opens, and again when they change', async () => {
    await ready();
    model.setTab('connectors');
    reply(transport.last('list_connectors'), [
      { name: 'shop', instructions: '', methods: [] }
    ]);
    await settle();
    expect(model.connectorInfo?.map(c => c.name)).toEqual(['shop']);
    model.receive({
      type: 'event',
      event: 'connectors_changed',
      execution_id: null
    });
    expect(transport.ofType('list_connectors')).toHaveLength(2);
  });

  it('keeps notices with the notebook they belong to', async () => {
    await ready([execution('P', 'paused')]);
    model.receive({
      type: 'error',
      request_id: null,
      request: null,
      error: 'bad',
      error_type: 'PanelRequestError'
    });
    const approving = model.approve('P', 1);
    expect(model.notices).toHaveLength(1);
    // The user switches to another notebook before the kernel answers.
    const other = new FakeTransport();
    model.setNotebook('other.ipynb');
    model.connect(other, 'Code Mode');
    expect(model.notices).toEqual([]);
    expect(await approving).toBe(false);
    model.receive({
      type: 'hello',
      protocol: PROTOCOL_VERSION,
      runtime: 'default',
      connectors: []
    });
    reply(other.last('snapshot'), snapshot([]));
    await settle();
    expect(model.notices).toEqual([]);
    expect(model.loaded).toBe(true);
  });

  it('loads the new notebook even when the old one answered late', async () => {
    await ready();
    const refreshing = model.refresh();
    const stale = transport.last('snapshot');
    const other = new FakeTransport();
    model.connect(other, 'Code Mode');
    model.receive({
      type: 'hello',
      protocol: PROTOCOL_VERSION,
      runtime: 'default',
      connectors: []
    });
    await settle(); // the old reload fails (its comm closed) and reloads from the new kernel
    expect(stale.request_id).not.toBe(other.last('snapshot').request_id);
    reply(other.last('snapshot'), snapshot([execution('N', 'completed')]));
    await refreshing;
    await settle();
    expect(model.executions.map(e => e.id)).toEqual(['N']);
    expect(model.notices).toEqual([]);
  });

  it('keeps at most three notices, and dismisses them', async () => {
    await ready();
    for (let i = 0; i < 5; i++) {
      model.receive({
        type: 'error',
        request_id: null,
        request: null,
        error: `bad ${i}`,
        error_type: 'PanelRequestError'
      });
    }
    expect(model.notices.map(n => n.text)).toEqual(['bad 2', 'bad 3', 'bad 4']);
    model.dismissNotice(model.notices[0].id);
    expect(model.notices).toHaveLength(2);
  });
});

describe('journal and list presentation', () => {
  it('names what happened to each call', () => {
    expect(displayState(entry({ pass_number: 1 }), 2)).toBe('replayed');
    expect(displayState(entry({ pass_number: 2 }), 2)).toBe('executed');
    expect(displayState(entry({ pass_number: 1, ephemeral: true }), 2)).toBe(
      'executed'
    );
    expect(displayState(entry({ state: 'pending', result: null }), 1)).toBe(
      'pending'
    );
    expect(displayState(entry({ state: 'reverted' }), 2)).toBe('reverted');
    expect(displayState(entry({ state: 'error', error: 'Rejected' }), 1)).toBe(
      'rejected'
    );
    expect(
      displayState(entry({ state: 'error', error: 'KeyError: 3' }), 1)
    ).toBe('error');
    expect(displayState(entry({ state: 'executing' }), 1)).toBe('executing');
  });

  it('counts in words', () => {
    expect(plural(1, 'call')).toBe('1 call');
    expect(plural(2, 'call')).toBe('2 calls');
    expect(plural(2, 'pass', 'passes')).toBe('2 passes');
  });

  it('says how old an execution is', () => {
    const now = 10_000_000;
    expect(formatAge(now - 1000, now)).toBe('just now');
    expect(formatAge(now - 42_000, now)).toBe('42 s ago');
    expect(formatAge(now - 5 * 60_000, now)).toBe('5 min ago');
    expect(formatAge(now - 3 * 3_600_000, now)).toBe('3 h ago');
    expect(formatAge(now - 50 * 3_600_000, now)).toBe('2 d ago');
    expect(formatAge(now + 5000, now)).toBe('just now');
  });

  it('names the pending call the detail shows, for its Approve and Reject', () => {
    const detail = {
      ...execution('P', 'paused'),
      code: 'shop.list_items()\nshop.create_item(title="x")',
      result: null,
      logs: [],
      logs_omitted: 0,
      entries: [
        entry({ seq: 0 }),
        entry({
          seq: 1,
          method: 'create_item',
          path: 'shop.create_item',
          state: 'pending',
          result: null
        })
      ]
    };
    expect(pendingCall(detail)?.seq).toBe(1);
    expect(pendingCall(execution('P', 'paused'))).toBeNull();
    expect(pendingCall({ ...detail, entries: [entry({ seq: 0 })] })).toBeNull();
  });

  it('offers the actions each status allows', () => {
    expect(canApprove(execution('P', 'paused'))).toBe(true);
    expect(canApprove(execution('C', 'completed'))).toBe(false);
    expect(canRollback(execution('C', 'completed'))).toBe(true);
    expect(
      canRollback(
        execution('C', 'completed', { revertible: 0, can_rollback: false })
      )
    ).toBe(false);
    expect(canRollback(execution('P', 'paused'))).toBe(false);
    expect(canSaveSnippet(execution('C', 'completed'))).toBe(true);
    expect(canSaveSnippet(execution('E', 'error'))).toBe(false);
    expect(canDelete(execution('R', 'running'))).toBe(false);
    expect(canDelete(execution('E', 'error'))).toBe(true);
  });
});

describe('messages', () => {
  it('accepts only the kernel message types', () => {
    expect(
      asKernelMessage({ type: 'event', event: 'x', execution_id: null })
    ).not.toBeNull();
    expect(asKernelMessage({ type: 'snapshot' })).toBeNull();
    expect(asKernelMessage([])).toBeNull();
    expect(asKernelMessage(undefined)).toBeNull();
  });

  it('declares parameters for every request type', () => {
    expect(Object.keys(REQUEST_PARAMS)).toContain('approve');
    // Protocol 2: a decision names its call; the kernel refuses one without.
    expect(REQUEST_PARAMS.reject).toEqual({ execution_id: 'str', seq: 'int' });
    expect(REQUEST_PARAMS.approve).toEqual({ execution_id: 'str', seq: 'int' });
  });
});
