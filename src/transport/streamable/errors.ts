/** Why the Streamable HTTP server cannot carry a message to the client. */
export type StreamUnavailableReason =
  /** Stateless mode: the client's answer would reach another, temporary session. */
  | 'stateless'
  /** JSON-response mode, or a message unrelated to any request, and the client holds no GET stream. */
  | 'no-get-stream';

/**
 * A server-to-client message had no stream to travel on. Requests (sampling, elicitation, roots) reject
 * with it at once instead of waiting for a timeout; notifications are dropped and it goes to `onerror`.
 * Like a missing client capability, it is not a protocol error: a tool that lets it escape answers with
 * an `isError` result carrying its message.
 */
export class StreamUnavailableError extends Error {
  override name = 'StreamUnavailableError';
  constructor(
    readonly method: string,
    readonly reason: StreamUnavailableReason,
    jsonResponse: boolean,
  ) {
    super(
      reason === 'stateless'
        ? `Cannot send "${method}" to the client: the server runs in stateless mode, where each POST is served ` +
            'by a temporary session and the client could never answer it; serve with sessions to use ' +
            'sampling, elicitation and roots'
        : `Cannot send "${method}" to the client: ${
            jsonResponse
              ? 'the server answers POSTs with one JSON body (JSON-response mode), so messages sent while a request runs need'
              : 'it is unrelated to any request in flight, so it needs'
          } the client's GET stream, and the client holds none; the client must open one with GET`,
    );
  }
}

/** A request the HTTP layer refused, as reported to `onerror`: the status and the message the client got. */
export class HttpRejectionError extends Error {
  override name = 'HttpRejectionError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
