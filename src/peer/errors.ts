import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import { abortReasonText } from './abort-reason.js';

/** A request got no answer in time. The peer was sent `notifications/cancelled`. */
export class RequestTimeoutError extends McpError {
  override name = 'RequestTimeoutError';
  constructor(
    readonly method: string,
    readonly waitedMs: number,
    readonly limit: 'timeout' | 'maxTotalTimeoutMs',
  ) {
    super(
      ErrorCode.RequestTimeout,
      limit === 'timeout'
        ? `Request "${method}" timed out after ${waitedMs} ms with no answer or progress`
        : `Request "${method}" exceeded its maximum total time of ${waitedMs} ms`,
      { method, waitedMs },
    );
  }
}

/** The connection closed before an answer came, or a message was sent on a closed session. */
export class ConnectionClosedError extends McpError {
  override name = 'ConnectionClosedError';
  constructor(message = 'Connection closed', cause?: Error) {
    super(ErrorCode.ConnectionClosed, cause ? `${message}: ${cause.message}` : message);
  }
}

/**
 * The transport lost the peer's session while the request was in flight, so no answer will come.
 * The session has initialized anew; the request was not resent (see `RequestOptions.retryOnRestart`).
 */
export class SessionExpiredError extends McpError {
  override name = 'SessionExpiredError';
  constructor(
    readonly method: string,
    cause: Error,
  ) {
    super(
      ErrorCode.ConnectionClosed,
      `Request "${method}" was lost with the server's session: ${cause.message}`,
    );
  }
}

/**
 * The stream that was to carry a request's answer broke before the answer came, and it cannot be resumed
 * (spec 2026-07-28, Streamable HTTP: a broken stream loses the request). The server may or may not have
 * run it: the client re-issues only requests that are safe to repeat, and fails the others with this.
 */
export class ResponseLostError extends McpError {
  override name = 'ResponseLostError';
  constructor(
    readonly method: string,
    detail: string,
  ) {
    super(
      ErrorCode.ConnectionClosed,
      `The answer to "${method}" was lost (${detail}); the server may or may not have run it`,
      { method },
    );
  }
}

/**
 * The peer answered the request with a message that is not a valid JSON-RPC response (a result that is not an
 * object, an error without an integer code, an answer in a batch the version refuses): no valid answer will come,
 * so the request fails at once rather than at its timeout. `problem` says what is wrong with the answer.
 */
export class InvalidResponseError extends McpError {
  override name = 'InvalidResponseError';
  constructor(
    readonly method: string,
    readonly problem: string,
  ) {
    super(ErrorCode.InternalError, `The answer to "${method}" is not a valid JSON-RPC response: ${problem}`, {
      method,
    });
  }
}

/** The caller aborted a request through its AbortSignal. The peer was sent `notifications/cancelled`. */
export class RequestCancelledError extends McpError {
  override name = 'RequestCancelledError';
  constructor(
    readonly method: string,
    readonly reason: unknown,
  ) {
    super(ErrorCode.RequestCancelled, `Request "${method}" was cancelled: ${abortReasonText(reason)}`);
  }
}

/** The peer did not declare the capability a request needs; nothing was sent. */
export class CapabilityError extends McpError {
  override name = 'CapabilityError';
  constructor(message: string) {
    super(ErrorCode.InvalidRequest, message);
  }
}
