import type { RequestId } from '../jsonrpc/types.js';
import type { SentObservation } from '../telemetry/telemetry.js';
import type { Clock } from '../util/clock.js';

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** What both peers configure on a session. */
export interface PeerOptions {
  /** Default time a request waits for its answer, reset by each progress notification. */
  requestTimeoutMs?: number;
  /** Hard limit on a request's total time, whatever progress arrives. Default: none. */
  maxTotalTimeoutMs?: number;
  /** Receives every failure that has no caller to reject: bad input, handler errors, send errors. */
  onerror?: (err: Error) => void;
  clock?: Clock;
}

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface RequestOptions {
  /** Aborting sends `notifications/cancelled` and rejects with `RequestCancelledError`. */
  signal?: AbortSignal;
  /** Overrides the session's `requestTimeoutMs` for this call. */
  timeoutMs?: number;
  /** Overrides the session's `maxTotalTimeoutMs` for this call. */
  maxTotalTimeoutMs?: number;
  /** Called for each progress notification; asking for it attaches a progress token. */
  onprogress?: (progress: Progress) => void;
  /** The incoming request this one is made on behalf of (routes it to that request's stream). */
  relatedRequestId?: RequestId;
  /**
   * When the transport loses the peer's session (see `Receiver.restarted`), send this request
   * again once the session is initialized anew, instead of failing it with SessionExpiredError.
   * Only for requests that are safe to run twice. (One the transport never sent goes again regardless.)
   */
  retryOnRestart?: boolean;
  /**
   * @internal The observation of a request sent in several rounds (a modern request answered input_required):
   * each round carries its trace context, and none makes an observation of its own.
   */
  observation?: SentObservation;
}
