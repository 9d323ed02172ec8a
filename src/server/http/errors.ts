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
export class HTTPRejectionError extends Error {
  override name = 'HTTPRejectionError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The event store numbered a stream's new event at or below one the stream had already recorded: it lost events
 * (a Redis restarted from an older state, or failed over to a replica that lagged). The event went out live,
 * without an event id, so the client got it; a resumption from before it cannot bring it back.
 */
export class RenumberedEventError extends Error {
  override name = 'RenumberedEventError';
  constructor(
    readonly streamId: string,
    readonly index: number,
    /** The highest index the stream had recorded before. */
    readonly recorded: number,
  ) {
    super(
      `The event store numbered a new event of stream "${streamId}" ${index}, though the stream had recorded events ` +
        `up to ${recorded}: the store lost events (e.g. Redis restarted from an older snapshot). The event was sent ` +
        'without an event id; a client resuming from before it will not get it again.',
    );
  }
}
