/**
 * A value or a promise of it. An in-process store answers directly, so the hot path (one `append` per SSE
 * event) allocates no promise; a networked store answers with promises. A failure takes the same path as the
 * result: thrown when the result is direct, a rejection when it is a promise. Callers accept both: `await`
 * does, and so does a call inside `try` that chains on the result only when it is a Promise.
 */
export type MaybePromise<T> = T | Promise<T>;

/** What `EventStore.after` answers: a complete replay. */
export interface Replay {
  /** The data of every event after the requested index, in order: `events[k]` is event `index + 1 + k`. */
  readonly events: readonly string[];
  /** The stream was closed (`streamClosed`) and `events` runs to its end: no event will follow. */
  readonly closed: boolean;
}

/**
 * One stream of an event store, as `open` answered it: `append(data)` is the store's `append` on that stream, with
 * its promise (numbering, visibility, errors), but the store need not find the stream by its ids again. A server
 * writing one event to many streams (a broadcast) looks none of them up. It stays that stream's: a stream opened
 * again under the same ids after this one was forgotten is another stream.
 */
export interface StreamAppender {
  append(data: string): MaybePromise<number>;
}

/**
 * Keeps the SSE events of every stream of every session, so that a client whose connection dropped can resume
 * a stream with `Last-Event-ID` (event ids are `formatEventId(streamId, index)`). Its promise:
 *
 * - Ownership: a stream belongs to the session that opened it; every call names both, and a stream is only
 *   found through its own session, so a replay never crosses sessions.
 * - Order: `append` numbers a stream's events 0, 1, 2, … in call order, also when the caller makes several
 *   appends without waiting for the previous one. Nothing depends on a clock.
 * - Visibility: once an append has answered, every later `after` sees the event (in any process that shares
 *   the store).
 * - Completeness: `after` answers every event after the given index, or fails. It never answers a partial
 *   replay: when any of those events was purged (a store is bounded), it throws `EventsPurgedError`. Purging
 *   takes a stream's oldest events first, so the events held are always the stream's latest ones.
 * - Cleanup: `sessionClosed` frees everything the session owns. `streamClosed` and `sessionClosed` never fail
 *   for an unknown or already closed stream or session, so cleanup can run in any order.
 *
 * Every method answers directly or with a promise: see `MaybePromise`.
 */
export interface EventStore {
  /**
   * Creates stream `streamId` of session `sessionId`, with no events. Opening an open stream changes nothing. A
   * store may answer the stream's `StreamAppender`, which the opener may append through instead of by ids; or
   * nothing.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a store whose open answers nothing (`void`, `Promise<void>`) fits as is
  open(sessionId: string, streamId: string): MaybePromise<StreamAppender | void>;

  /**
   * Stores `data` (one event's data; '' is allowed, e.g. for a priming event) as the stream's next event and
   * answers its index: 0 for the first, then one more each time. Throws `UnknownStreamError` when the stream is
   * not open in this session (never opened, or the session closed) and `StreamClosedError` after `streamClosed`.
   */
  append(sessionId: string, streamId: string, data: string): MaybePromise<number>;

  /**
   * The events of the stream with an index greater than `index` (-1 for all of them), complete and in order.
   * Throws `EventsPurgedError` when any of them is no longer held; `UnknownStreamError` when this session has
   * no such stream (another session's, or its session closed; a store may also forget a closed stream once
   * none of its events is held); `UnknownEventError` when `index` is at or past the stream's next index (that
   * event id was never issued); `RangeError` when `index` is not an integer ≥ -1.
   */
  after(sessionId: string, streamId: string, index: number): MaybePromise<Replay>;

  /**
   * Marks the stream finished: later appends throw, and replays say `closed`, so that a resumed stream can end
   * right after its replay. Its events stay replayable until purged or until the session closes.
   */
  streamClosed(sessionId: string, streamId: string): MaybePromise<void>;

  /** Frees everything the session owns; its streams become unknown. */
  sessionClosed(sessionId: string): MaybePromise<void>;
}
