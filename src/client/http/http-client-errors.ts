import { ErrorCode, McpError } from '../../jsonrpc/errors.js';

/**
 * An HTTP exchange of the Streamable HTTP client failed: the server answered with a status other than
 * 2xx (`status`, and an excerpt of the body in `body`), or no answer came at all (`status` undefined,
 * the network error in `cause`). A request whose POST failed rejects with it, so a caller can tell
 * "the server refused this" (and which status: 400, 404 or 405 on initialize means a legacy server)
 * from an error the server answered in JSON-RPC.
 */
export class StreamableHTTPError extends McpError {
  override name = 'StreamableHTTPError';
  constructor(
    message: string,
    readonly status?: number,
    readonly body?: string,
    options?: { cause?: unknown },
  ) {
    super(ErrorCode.ConnectionClosed, message, status === undefined ? undefined : { status });
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/**
 * The server answered 404 to a request carrying our `Mcp-Session-Id`: it no longer knows the session
 * (expired, deleted, or the server restarted). With `onSessionLost: 'restart'` the client initializes a
 * fresh session and this is the cause handed to `Receiver.restarted`; with `'close'` it closes the
 * connection.
 */
export class SessionLostError extends StreamableHTTPError {
  override name = 'SessionLostError';
  constructor(
    readonly sessionId: string,
    detail: string,
    body?: string,
  ) {
    super(`The server no longer knows session ${sessionId} (HTTP 404): ${detail}`, 404, body);
  }
}
