/**
 * The table of requests waiting for the kernel's answer (request id -> promise).
 */
import { IReplyData, RequestType } from './messages';

/** A request the kernel answered with an error (or that never got an answer). */
export class RequestError extends Error {
  constructor(
    message: string,
    readonly errorType: string,
    readonly request: RequestType | null
  ) {
    super(message);
    this.name = 'RequestError';
  }
}

/** Approvals run a whole pass (and may wait for a connector): they have no time limit. */
const WITHOUT_TIMEOUT: ReadonlySet<RequestType> = new Set([
  'approve',
  'reject',
  'rollback'
]);

interface IPending {
  type: RequestType;
  resolve: (data: any) => void;
  reject: (error: RequestError) => void;
  timer: ReturnType<typeof setTimeout> | null;
}

export class PendingRequests {
  constructor(private readonly _timeoutMs: number) {}

  /** Register a request; `send` gets its id. The promise settles with the answer. */
  open<K extends RequestType>(
    type: K,
    send: (requestId: string) => void
  ): Promise<IReplyData[K]> {
    const requestId = `r${++this._nextId}`;
    return new Promise<IReplyData[K]>((resolve, reject) => {
      const pending: IPending = { type, resolve, reject, timer: null };
      if (!WITHOUT_TIMEOUT.has(type)) {
        pending.timer = setTimeout(() => {
          this._forget(requestId);
          reject(
            new RequestError(
              `The kernel did not answer '${type}' within ${Math.round(this._timeoutMs / 1000)} s; it may be busy.`,
              'Timeout',
              type
            )
          );
        }, this._timeoutMs);
      }
      this._pending.set(requestId, pending);
      try {
        send(requestId);
      } catch (error) {
        this._forget(requestId);
        reject(new RequestError(String(error), 'SendFailed', type));
      }
    });
  }

  /** Settle a request with the reply's data; false if no such request is waiting. */
  resolve(requestId: string | null, data: unknown): boolean {
    const pending = this._take(requestId);
    pending?.resolve(data);
    return pending !== null;
  }

  /** Settle a request with an error; false if no such request is waiting. */
  reject(requestId: string | null, error: RequestError): boolean {
    const pending = this._take(requestId);
    pending?.reject(error);
    return pending !== null;
  }

  /** Fail every waiting request (the connection closed). */
  failAll(message: string): void {
    for (const id of [...this._pending.keys()]) {
      const pending = this._take(id);
      pending?.reject(new RequestError(message, 'NotConnected', pending.type));
    }
  }

  private _take(requestId: string | null): IPending | null {
    const pending =
      requestId === null ? undefined : this._pending.get(requestId);
    if (pending === undefined || requestId === null) {
      return null;
    }
    this._forget(requestId);
    return pending;
  }

  private _forget(requestId: string): void {
    const pending = this._pending.get(requestId);
    if (pending?.timer) {
      clearTimeout(pending.timer);
    }
    this._pending.delete(requestId);
  }

  private _pending = new Map<string, IPending>();
  private _nextId = 0;
}
