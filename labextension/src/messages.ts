/**
 * The messages of the Code Mode panel comm, browser side.
 *
 * The kernel's half is `codemode_kernel/kernel/panel_messages.py`; the constants below and
 * the fields of the data interfaces are checked against it by
 * `tests/panel/test_messages_sync.py`, so change both files together.
 *
 * Panel -> kernel: `{type, request_id, ...params}` (one of REQUEST_PARAMS).
 * Kernel -> panel: `hello` when the comm opens, then `reply` / `error` per request and
 * `event` whenever something changed.
 */

export const TARGET_NAME = 'codemode.panel';
/**
 * 2: approve and reject must name the call (`seq`); the kernel refuses them without one. A page
 * of protocol 1 is told to install matching versions and reload.
 */
export const PROTOCOL_VERSION = 2;

/**
 * Parameters of every request: "str" / "int" are required, a trailing "?" makes the
 * parameter optional (absent or null).
 */
export const REQUEST_PARAMS = {
  snapshot: { limit: 'int?' },
  get_execution: { execution_id: 'str' },
  get_value: { execution_id: 'str', seq: 'int?', field: 'str' },
  approve: { execution_id: 'str', seq: 'int' },
  reject: { execution_id: 'str', seq: 'int' },
  rollback: { execution_id: 'str' },
  delete_execution: { execution_id: 'str' },
  save_snippet: { execution_id: 'str', name: 'str', description: 'str?' },
  delete_snippet: { name: 'str' },
  list_connectors: {},
  search: { query: 'str' },
  describe: { target: 'str' }
} as const;

export const KERNEL_MESSAGES = ['hello', 'reply', 'error', 'event'] as const;

export const EVENTS = [
  'execution_started',
  'execution_changed',
  'execution_deleted',
  'snippets_changed',
  'connectors_changed',
  'kernel_ready'
] as const;

export const VALUE_FIELDS = ['args', 'result', 'code', 'logs'] as const;

export const EXECUTION_STATUSES = [
  'running',
  'paused',
  'completed',
  'error',
  'rejected',
  'rolled_back'
] as const;

export const ENTRY_STATES = [
  'executing',
  'applied',
  'pending',
  'reverted',
  'error'
] as const;

export type RequestType = keyof typeof REQUEST_PARAMS;
export type EventName = (typeof EVENTS)[number];
export type ValueField = (typeof VALUE_FIELDS)[number];
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];
export type EntryState = (typeof ENTRY_STATES)[number];

/** A value shown in the panel: one-line summary, text cut for display, and its full size. */
export interface IValue {
  summary: string;
  text: string;
  chars: number;
  truncated: boolean;
}

export interface IExecutionSummary {
  id: string;
  status: ExecutionStatus;
  first_line: string;
  created_at: number;
  updated_at: number;
  passes: number;
  calls: number;
  pending: number;
  /** How many calls a rollback would revert (the kernel's rule, `selection.revertible_calls`). */
  revertible: number;
  /** Whether the execution can be rolled back now; the kernel decides, the panel only shows it. */
  can_rollback: boolean;
  error: string | null;
  error_type: string | null;
  connectors: string[];
  /** Started by a model through the codemode tool (`codemode mcp`), not by a cell. */
  via_tool?: boolean;
}

export interface IJournalEntry {
  seq: number;
  connector: string;
  method: string;
  path: string;
  step: boolean;
  args: IValue;
  result: IValue | null;
  state: EntryState;
  error: string | null;
  pass_number: number;
  requires_approval: boolean;
  ephemeral: boolean;
  created_at: number;
  updated_at: number;
}

export interface IExecutionDetail extends IExecutionSummary {
  code: string;
  result: IValue | null;
  logs: string[];
  logs_omitted: number;
  entries: IJournalEntry[];
}

export interface IPendingAction {
  execution_id: string;
  seq: number;
  connector: string;
  method: string;
  path: string;
  args: IValue;
}

export interface ISnippetInfo {
  name: string;
  description: string;
  connectors: string[];
  code: IValue;
  saved_at: number;
  execution_id: string | null;
  input_schema: IValue | null;
}

export interface ISnapshot {
  runtime: string;
  connectors: string[];
  executions: IExecutionSummary[];
  pending: IPendingAction[];
  snippets: ISnippetInfo[];
}

export interface IMethodInfo {
  name: string;
  path: string;
  description: string;
  requires_approval: boolean;
  revertible: boolean;
  replay: string;
}

export interface IConnectorInfo {
  name: string;
  instructions: string;
  /** Why the connector's methods could not be listed (null when they could). */
  unavailable?: string | null;
  methods: IMethodInfo[];
}

export interface ISearchResult {
  path: string;
  connector: string;
  method: string;
  description: string;
  requires_approval: boolean;
  kind: 'method' | 'snippet';
  score: number;
  /** The arguments a call must pass (a snippet's input keys). */
  required: string[];
}

export interface ISearchOutput {
  results: ISearchResult[];
  total: number;
  truncated: boolean;
}

export interface IDescribeOutput {
  path: string;
  description: string;
  requires_approval: boolean;
  types: string;
  kind: 'connector' | 'method' | 'snippet' | 'not_found';
  /** Nearest paths, when ``kind`` is ``not_found``. */
  suggestions?: string[];
  /** Why nothing was found (``kind`` ``not_found``). */
  error?: string;
  /** A connector's method listing is paged: this page of ``pages``. */
  page?: number;
  pages?: number;
  /** The declarations were shortened to fit the size cap (the text says how to see the rest). */
  truncated?: boolean;
}

export interface IFullValue extends IValue {
  execution_id: string;
  seq: number | null;
  field: ValueField;
}

export interface IApproveReply {
  execution_id: string;
  status: ExecutionStatus;
  error: string | null;
  pending: number;
  /** Set when the execution was decided elsewhere first: how it ended, in one sentence. */
  message?: string;
}

export interface IRejectReply {
  execution_id: string;
  status: ExecutionStatus;
  /** Set when the execution was decided elsewhere first: how it ended, in one sentence. */
  message?: string;
}

export interface IRollbackReply {
  execution_id: string;
  status: ExecutionStatus | null;
  reverted: number;
}

/** What each request sends (besides `type` and `request_id`). */
export interface IRequestParams {
  snapshot: { limit?: number | null };
  get_execution: { execution_id: string };
  get_value: { execution_id: string; seq?: number | null; field: ValueField };
  /** `seq`: the pending call the panel showed; the kernel approves nothing if it is no longer pending. */
  approve: { execution_id: string; seq: number };
  /** `seq`: as for approve; required, a reject that names no call is refused. */
  reject: { execution_id: string; seq: number };
  rollback: { execution_id: string };
  delete_execution: { execution_id: string };
  save_snippet: {
    execution_id: string;
    name: string;
    description?: string | null;
  };
  delete_snippet: { name: string };
  list_connectors: Record<string, never>;
  search: { query: string };
  describe: { target: string };
}

/** What each request's reply carries in `data`. */
export interface IReplyData {
  snapshot: ISnapshot;
  get_execution: IExecutionDetail;
  get_value: IFullValue;
  approve: IApproveReply;
  reject: IRejectReply;
  rollback: IRollbackReply;
  delete_execution: { execution_id: string; deleted: true };
  save_snippet: ISnippetInfo;
  delete_snippet: { name: string; deleted: true };
  list_connectors: IConnectorInfo[];
  search: ISearchOutput;
  describe: IDescribeOutput;
}

// Both tables must name every request type: a missing one is a compile error here.
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
export const REQUEST_TABLES_COMPLETE: Exact<
  keyof IRequestParams | keyof IReplyData,
  RequestType
> = true;

export type PanelRequest<K extends RequestType = RequestType> = {
  type: K;
  request_id: string;
} & IRequestParams[K];

export interface IHelloMessage {
  type: 'hello';
  protocol: number;
  runtime: string;
  connectors: string[];
  error?: string;
}

export interface IReplyMessage<K extends RequestType = RequestType> {
  type: 'reply';
  request_id: string;
  request: K;
  data: IReplyData[K];
}

export interface IErrorMessage {
  type: 'error';
  request_id: string | null;
  request: RequestType | null;
  error: string;
  error_type: string;
}

export interface IEventMessage {
  type: 'event';
  event: EventName | string;
  execution_id: string | null;
}

export type KernelMessage =
  IHelloMessage | IReplyMessage | IErrorMessage | IEventMessage;

/** Narrow data received on the comm to a kernel message (anything else is ignored). */
export function asKernelMessage(data: unknown): KernelMessage | null {
  if (typeof data !== 'object' || data === null) {
    return null;
  }
  const type = (data as { type?: unknown }).type;
  if (
    typeof type !== 'string' ||
    !(KERNEL_MESSAGES as readonly string[]).includes(type)
  ) {
    return null;
  }
  return data as KernelMessage;
}
