import { formatEventId } from '../eventstore/event-id.js';
import type { MaybePromise, Replay } from '../eventstore/event-store.js';
import { formatSseEvent } from '../http/sse-event.js';
import type { SSEWriter } from '../http/sse-writer.js';
import { eventFrame, primeFrame } from '../server/http/legacy/event-frames.js';
import { Stream } from '../server/http/legacy/stream.js';
import { UNSET } from '../server/http/legacy/stream-owner.js';

/**
 * A stream of a session several processes serve (`RedisCluster` makes every stream of a shared session): other
 * processes may record events in it too (the GET stream), or write it while a response here follows it (a
 * `follower`, for a resumed GET that reached this process). A response writes event `i` only after event
 * `i - 1`, fetching from the store what it did not record itself, so that the client gets every event once, in
 * order, whichever process recorded it; the other processes hear what it records and when a response here
 * carries it (`StreamOwner.recorded`, `held`).
 */
export class SharedStream extends Stream {
  /** The highest index known to be recorded, by any process. */
  private known = -1;
  /** A fetch from the store is under way (`fetchAgain`: and another must follow it). */
  private fetching = false;
  private fetchAgain = false;

  /**
   * A process recorded the stream's events up to `index` (or closed it, `closed`); the
   * response here, if one carries the stream, gets those it lacks from the store, in order.
   */
  recordedElsewhere(index: number, closed: boolean): void {
    if (index > this.known) this.known = index;
    if (!this.held || this.finished) return;
    if (this.floor === UNSET) {
      // The priming event, still on its way, sets where this response starts.
      if (this.owner.primes) return;
      this.floor = index - 1;
    }
    if (index > this.floor || closed) this.fetchFromStore();
  }

  /**
   * Writes what the store holds that the response here lacks, in case a notice of it was
   * missed (this process's announcement crossed another's append, or its connection to the others dropped).
   */
  catchUp(): void {
    // Only the GET stream and a followed stream get events from other processes: a POST stream written here has
    // nothing elsewhere to catch up with (and a store that lost its events must not end its response).
    if (!this.standalone && !this.follower) return;
    if (this.held && !this.finished && this.floor !== UNSET) this.fetchFromStore();
  }

  /**
   * The process writing this followed stream is gone (killed, or cut off from the others), so
   * the stream would never end. It is marked closed in the store, so that every resumption, through any process,
   * replays what it holds and ends; the response here gets what it lacks and ends the same way.
   */
  writerGone(): void {
    if (!this.follower || this.finished) return;
    let closing: MaybePromise<void>;
    try {
      closing = this.owner.store!.streamClosed(this.owner.storeKey, this.id);
    } catch (err) {
      this.owner.settings.report(err);
      this.handOver();
      return;
    }
    if (!(closing instanceof Promise)) {
      this.fetchFromStore();
      return;
    }
    closing.then(
      () => this.fetchFromStore(),
      (err) => {
        this.owner.settings.report(err);
        this.handOver();
      },
    );
  }

  /** A response of another process now carries the stream: the one here ends, to be resumed. */
  handOver(): void {
    const w = this.writer;
    if (w === undefined || w.closed) return;
    this.writer = undefined;
    w.retry(this.owner.settings.retryMs);
    w.close();
  }

  protected override attached(): void {
    // A new listener: it gets what is recorded from now on, starting with its priming event.
    this.floor = UNSET;
    this.owner.held(this);
  }

  protected override resumed(upTo: number): void {
    this.owner.held(this);
    // What was recorded elsewhere between the replay and now.
    if (this.known > upTo) this.fetchFromStore();
  }

  protected override finish(closedInStore: boolean): void {
    if (this.finished) return;
    super.finish(closedInStore);
    // A response elsewhere that follows the stream ends once the store says it is closed.
    if (closedInStore && this.opened) this.owner.recorded(this, this.lastIndex, true);
  }

  /**
   * Writes event `index`, recorded here, only right after the last one the response got; after a gap (events
   * recorded elsewhere, not yet fetched) it is fetched with them, in order. The other processes hear of it.
   */
  override deliver(index: number, data: string, priming: boolean): void {
    this.owner.recorded(this, index, false);
    if (index > this.known) this.known = index;
    if (this.started && !this.held) return;
    if (this.floor === UNSET) this.floor = index - 1;
    if (index <= this.floor) return;
    if (index !== this.floor + 1 && this.started) {
      this.fetchFromStore();
      return;
    }
    this.floor = index;
    const id = formatEventId(this.id, index);
    this.emit(priming ? primeFrame(id, this.owner.settings.retryMs) : eventFrame(id, data));
    if (this.known > index) this.fetchFromStore();
  }

  /**
   * Writes what the store holds after the last event the current response got. One fetch at a
   * time; news during one starts another. A failure (events purged, the store unreachable) ends the response with
   * a retry hint: the client resumes from its last event, and gets a clear error if that cannot be done.
   */
  private fetchFromStore(): void {
    // A new GET response starts where its first event says; until then there is nothing to fetch.
    if (this.floor === UNSET) return;
    if (this.fetching) {
      this.fetchAgain = true;
      return;
    }
    const writer = this.writer;
    if (writer === undefined || writer.closed) return;
    this.fetching = true;
    this.fetchAgain = false;
    const from = this.floor;
    let replay: Replay | Promise<Replay>;
    try {
      replay = this.owner.store!.after(this.owner.storeKey, this.id, from);
    } catch (err) {
      this.fetched(writer, from, undefined, err);
      return;
    }
    if (replay instanceof Promise) {
      replay.then(
        (r) => this.fetched(writer, from, r, undefined),
        (err) => this.fetched(writer, from, undefined, err),
      );
    } else this.fetched(writer, from, replay, undefined);
  }

  private fetched(writer: SSEWriter, from: number, replay: Replay | undefined, err: unknown): void {
    this.fetching = false;
    if (this.writer !== writer) {
      // The response changed meanwhile: the new one starts from its own floor.
      if (this.held && this.known > this.floor) this.fetchFromStore();
      return;
    }
    if (replay === undefined) {
      this.owner.settings.report(err);
      this.handOver();
      return;
    }
    let index = from;
    for (const data of replay.events) {
      if (++index <= this.floor) continue;
      // Data from the store: formatted with every check, one write per event.
      writer.frame(formatSseEvent({ id: formatEventId(this.id, index), data }));
      this.floor = index;
    }
    if (index > this.known) this.known = index;
    if (replay.closed && this.follower) {
      this.finish(false);
      return;
    }
    // Without progress there is nothing more to fetch now (no busy loop): the next notice starts the next fetch.
    if (this.fetchAgain || (this.known > this.floor && index > from)) this.fetchFromStore();
  }
}

/** A stream of a shared session, as `RedisCluster` made it. */
export function sharedStream(stream: Stream): SharedStream {
  if (!(stream instanceof SharedStream))
    throw new Error(`Stream ${stream.id} is not one of a shared session`);
  return stream;
}
