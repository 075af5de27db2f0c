/**
 * How the panel words things: journal states, statuses, ages, counts, allowed actions.
 * Pure functions, shared by the view and the tests.
 */
import {
  EntryState,
  ExecutionStatus,
  IExecutionDetail,
  IExecutionSummary,
  IJournalEntry
} from './messages';

/** How the journal shows an entry: what happened to the call, in words a user knows. */
export type DisplayState =
  | 'executed'
  | 'replayed'
  | 'executing'
  | 'pending'
  | 'reverted'
  | 'rejected'
  | 'error';

/** What happened to a journaled call, as the journal view says it. */
export function displayState(
  entry: IJournalEntry,
  passes: number
): DisplayState {
  const state: EntryState = entry.state;
  switch (state) {
    case 'applied':
      // Executed in an earlier pass and served from the journal in the later ones;
      // re-executed methods (ephemeral) run again on every pass.
      return !entry.ephemeral && entry.pass_number < passes
        ? 'replayed'
        : 'executed';
    case 'error':
      return entry.error === 'Rejected' ? 'rejected' : 'error';
    default:
      return state;
  }
}

export function statusLabel(status: ExecutionStatus): string {
  return status === 'rolled_back' ? 'rolled back' : status;
}

/** "just now", "42 s ago", "5 min ago", "3 h ago", "2 d ago". */
export function formatAge(timestamp: number, now: number): string {
  const seconds = Math.max(0, Math.floor((now - timestamp) / 1000));
  if (seconds < 5) {
    return 'just now';
  }
  if (seconds < 60) {
    return `${seconds} s ago`;
  }
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) {
    return `${minutes} min ago`;
  }
  const hours = Math.floor(minutes / 60);
  if (hours < 24) {
    return `${hours} h ago`;
  }
  return `${Math.floor(hours / 24)} d ago`;
}

export function canApprove(execution: IExecutionSummary): boolean {
  return execution.status === 'paused';
}

/**
 * The pending call an execution's detail shows: the call its Approve and Reject name (by seq).
 * Null for a summary (the journal has not loaded) or when nothing is pending.
 */
export function pendingCall(
  execution: IExecutionSummary | IExecutionDetail
): IJournalEntry | null {
  if (!('entries' in execution)) {
    return null;
  }
  return execution.entries.find(e => e.state === 'pending') ?? null;
}

/** The kernel decides whether an execution can be rolled back (one rule for card, panel and CLI). */
export function canRollback(execution: IExecutionSummary): boolean {
  return execution.can_rollback;
}

export function canSaveSnippet(execution: IExecutionSummary): boolean {
  return execution.status === 'completed' || execution.status === 'rolled_back';
}

/** A running pass is still using its execution; delete the others. */
export function canDelete(execution: IExecutionSummary): boolean {
  return execution.status !== 'running';
}

export function plural(count: number, noun: string, nouns?: string): string {
  return `${count} ${count === 1 ? noun : (nouns ?? `${noun}s`)}`;
}

export function errorText(error: unknown): string {
  if (error instanceof Error) {
    return error.message;
  }
  return String(error);
}
