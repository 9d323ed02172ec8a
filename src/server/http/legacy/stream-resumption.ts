import { EventsPurgedError, UnknownEventError, UnknownStreamError } from '../../../eventstore/errors.js';
import { type EventId, formatEventId, parseEventId } from '../../../eventstore/event-id.js';
import type { EventStore, Replay } from '../../../eventstore/event-store.js';
import type { HTTPExchange } from '../../../http/exchange.js';
import type { JsonErrorOptions } from '../../../http/json-error.js';
import { formatSseEvent } from '../../../http/sse-event.js';
import { SSEWriter } from '../../../http/sse-writer.js';
import { ErrorCode } from '../../../jsonrpc/errors.js';
import { reject } from '../reject.js';
import type { LegacySettings } from './legacy-settings.js';
import type { StreamableServerConn } from './session-conn.js';

/** What a resumption needs of its session. */
export interface ResumedSession {
  readonly sessionId: string | undefined;
  /** The session's event store; undefined when nothing is recorded (streams cannot be resumed). */
  readonly store: EventStore | undefined;
  /** Several processes serve the session: a stream not written here may be written elsewhere. */
  readonly shared: boolean;
  readonly settings: LegacySettings;
  readonly conn: StreamableServerConn;
}

type Outcome = 'replayed' | 'purged' | 'unknown' | 'failed';

/**
 * A GET with `Last-Event-ID`: replays the events of that stream after the given one, then continues the live
 * stream on the same response, or ends it if the stream finished. Refused with 400 when the session keeps no
 * event store, for an id this server did not issue and for an unknown stream or event (not 404: the session is
 * alive), with 410 when the events are purged (a partial replay would lose messages silently), with 500 when the
 * store fails before the replay began; after that, the response ends and the client resumes again.
 */
export function resumeStream(
  session: ResumedSession,
  exchange: HTTPExchange,
  lastEventId: string,
): void | Promise<void> {
  const refuse = (message: string) => reject(exchange, 400, message, session.settings);
  const store = session.store;
  if (store === undefined) {
    refuse(
      'Bad Request: this server keeps no event store, so streams cannot be resumed; ' +
        'open the GET stream again without Last-Event-ID',
    );
    return;
  }
  const event = parseEventId(lastEventId);
  if (event === undefined) {
    refuse(
      `Bad Request: Last-Event-ID ${JSON.stringify(lastEventId.slice(0, 200))} is not an event id this server issued`,
    );
    return;
  }
  return new Resumption(session, exchange, store, event.index).replay(event, undefined);
}

/** One resumption: its replay, round after round while a store answering with promises records more. */
class Resumption {
  /** When it began, for telemetry (undefined when nothing listens). */
  private readonly started: number | undefined;

  constructor(
    private readonly session: ResumedSession,
    private readonly exchange: HTTPExchange,
    private readonly store: EventStore,
    /** The index of the event it resumes after. */
    private readonly from: number,
  ) {
    this.started = session.settings.telemetry === undefined ? undefined : performance.now();
  }

  /**
   * Replays the events after `event` on `writer` (created on the first round, once the store has answered, so
   * that a refusal can still be an HTTP error), then hands the response to the live stream.
   */
  replay(event: EventId, writer: SSEWriter | undefined): void | Promise<void> {
    let replay: Replay | Promise<Replay>;
    try {
      replay = this.store.after(this.session.sessionId!, event.streamId, event.index);
    } catch (err) {
      this.failed(writer, err);
      return;
    }
    if (replay instanceof Promise) {
      return replay.then(
        (r) => this.replayed(event, writer, r),
        (err) => this.failed(writer, err),
      );
    }
    return this.replayed(event, writer, replay);
  }

  private replayed(event: EventId, writer: SSEWriter | undefined, replay: Replay): void | Promise<void> {
    const { exchange, session } = this;
    if (exchange.closed) return;
    const w = writer ?? new SSEWriter(exchange, session.settings.writerOptions);
    const streamId = event.streamId;
    let index = event.index;
    // Replayed data comes from the store: formatted with every check, one write per event.
    for (const data of replay.events) w.frame(formatSseEvent({ id: formatEventId(streamId, ++index), data }));
    let live = session.conn.stream(streamId);
    // Shared sessions: a stream this process does not write, and that is not closed, is written elsewhere.
    if (live === undefined && !replay.closed && session.shared) live = session.conn.resumable(streamId);
    if (replay.closed || live === undefined || live.isFinished) {
      this.told(index - this.from, 'replayed');
      w.close();
      return;
    }
    // A store answering with promises may have recorded more events while it answered: fetch them too.
    if (index < live.lastIndex) return this.replay({ streamId, index }, w);
    this.told(index - this.from, 'replayed');
    live.resume(w, exchange, index);
  }

  private failed(writer: SSEWriter | undefined, err: unknown): void {
    const unknown = err instanceof UnknownStreamError || err instanceof UnknownEventError;
    if (writer !== undefined) {
      this.told(0, 'failed');
      // The replay began: the status is sent, so the stream can only end (the client resumes again).
      this.session.settings.report(err);
      writer.close();
      return;
    }
    if (err instanceof EventsPurgedError) {
      this.told(0, 'purged');
      this.refuse(410, `Gone: ${err.message}`, { headers: { 'cache-control': 'no-store' } });
    } else if (unknown) {
      this.told(0, 'unknown');
      this.refuse(400, `Bad Request: ${(err as Error).message}`);
    } else {
      this.told(0, 'failed');
      this.session.settings.report(err);
      this.refuse(
        500,
        `Internal error: the event store failed to replay the stream: ${(err as Error)?.message ?? String(err)}`,
        { code: ErrorCode.InternalError },
      );
    }
  }

  private refuse(status: number, message: string, options?: JsonErrorOptions): void {
    reject(this.exchange, status, message, this.session.settings, options);
  }

  /** Telemetry hears how the resumption went: how many events it replayed. */
  private told(events: number, outcome: Outcome): void {
    if (this.started === undefined) return;
    this.session.settings.telemetry?.event({
      type: 'stream.resumed',
      sessionId: this.session.sessionId!,
      events,
      outcome,
      durationMs: performance.now() - this.started,
    });
  }
}
