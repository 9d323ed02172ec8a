/**
 * The event store's backend (Redis) could not be reached or did not answer in time. A call refused before it
 * was sent did nothing; a call cut off in flight (the connection dropped, or the command timed out) may or may
 * not have taken effect. The store reconnects on its own: retry once the backend is back. An HTTP server answers
 * it with 503. Like the other store errors, the message never names a session id.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  constructor(detail: string, options?: { cause?: unknown }) {
    super(
      `The event store is unavailable: ${detail}. Try again shortly; the server reconnects to Redis on its own.`,
      options,
    );
  }
}
