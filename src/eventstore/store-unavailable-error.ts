/**
 * A store's backend (Redis: the event store, the cluster's session or task store) could not be reached or did not answer in time. A call refused before it
 * was sent did nothing; a call cut off in flight (the connection dropped, or the command timed out) may or may
 * not have taken effect. The store reconnects on its own: retry once the backend is back. An HTTP server answers
 * it with 503. Like the other store errors, the message never names a session id.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  /** What an HTTP server answers with: the request may be tried again. */
  readonly httpStatus = 503;
  /** What failed, without the store's name: another store that met the error names itself with `as`. */
  readonly detail: string;
  /** `options.store` names what could not be reached (default `event store`; the cluster's `task store`…). */
  constructor(detail: string, options?: { cause?: unknown; store?: string }) {
    super(
      `The ${options?.store ?? 'event store'} is unavailable: ${detail}. Try again shortly; the server reconnects to Redis on its own.`,
      options,
    );
    this.detail = detail;
  }

  /** This error, as the failure of `store`. */
  as(store: string): StoreUnavailableError {
    return new StoreUnavailableError(this.detail, { cause: this.cause, store });
  }
}
