// The ways an EventStore refuses. Messages name the stream and the index, never the session id: they may
// reach a client or a log, and a session id is a credential.

/**
 * A replay would be incomplete: some events after the requested index were purged to keep the store within
 * its bound. Nothing was replayed.
 */
export class EventsPurgedError extends Error {
  override name = 'EventsPurgedError';
  constructor(
    readonly streamId: string,
    /** The index the replay was asked to start after. */
    readonly afterIndex: number,
    /** The lowest index the store still holds for the stream. */
    readonly firstHeld: number,
  ) {
    super(
      `Cannot resume stream "${streamId}" after event ${afterIndex}: ` +
        (firstHeld - 1 === afterIndex + 1
          ? `event ${afterIndex + 1} is`
          : `events ${afterIndex + 1} to ${firstHeld - 1} are`) +
        ' no longer stored (the event store is bounded), so the replay would be incomplete. ' +
        'Resume sooner after a disconnect, or send the request again.',
    );
  }
}

/**
 * The session has no stream with this id: it belongs to another session, was never opened, or its session
 * has ended. A replay never crosses sessions.
 */
export class UnknownStreamError extends Error {
  override name = 'UnknownStreamError';
  constructor(readonly streamId: string) {
    super(
      `No stream "${streamId}" in this session: it belongs to another session, was never opened, ` +
        'or its session has ended. Resume only with a Last-Event-ID received in the same session.',
    );
  }
}

/** The requested index is past the last event of the stream: that event id was never issued. */
export class UnknownEventError extends Error {
  override name = 'UnknownEventError';
  constructor(
    readonly streamId: string,
    readonly afterIndex: number,
    /** How many events the stream has had (its next index). */
    readonly count: number,
  ) {
    super(
      `Stream "${streamId}" has no event ${afterIndex} (it has had ${count} event${count === 1 ? '' : 's'}): ` +
        'the Last-Event-ID was not issued by this server. Resume with the id of the last event received.',
    );
  }
}

/** An append to a stream already marked closed: its replay promises that nothing follows. */
export class StreamClosedError extends Error {
  override name = 'StreamClosedError';
  constructor(readonly streamId: string) {
    super(`Stream "${streamId}" is closed: no event can be appended to it.`);
  }
}
