import { EventsPurgedError, StreamClosedError, UnknownEventError, UnknownStreamError } from './errors.js';
import type { EventStore, Replay, StreamAppender } from './event-store.js';

/**
 * Bytes charged for each event on top of its text: its slots in the stream's array and in the eviction
 * queue, and the string's header.
 */
export const MEMORY_EVENT_OVERHEAD_BYTES = 32;

/** Bytes charged for each stream on top of its id's text: its record and its map entry. */
export const MEMORY_STREAM_OVERHEAD_BYTES = 128;

/** Fewer dead slots than this are not worth a copy. */
const COMPACT_MIN = 32;

// Text is charged at 2 bytes per UTF-16 unit: an upper bound of what V8 keeps (one-byte strings take half),
// known in O(1), where Buffer.byteLength would scan every event.
const eventCost = (data: string) => 2 * data.length + MEMORY_EVENT_OVERHEAD_BYTES;
const streamCost = (streamId: string) => 2 * streamId.length + MEMORY_STREAM_OVERHEAD_BYTES;

export interface MemoryEventStoreOptions {
  /** The bound of `bytes`: past it, the oldest events of all streams are purged. Default 10 MiB. */
  maxBytes?: number;
}

/**
 * One stream: it holds events `low` … `next - 1`, event i at `events[i - base]` (slots below `low` are ''). It is
 * its own appender, which `open` answers.
 */
class Stream implements StreamAppender {
  events: string[] = [];
  base = 0;
  low = 0;
  closed = false;
  /** Its session closed: its entries still in the eviction queue are skipped. */
  dead = false;
  constructor(
    readonly id: string,
    readonly sessionId: string,
    private readonly store: MemoryEventStore,
  ) {}

  append(data: string): number {
    return this.store.appendTo(this, data);
  }
}

/**
 * An EventStore in this process's memory, bounded in bytes (`maxBytes`). Every method answers directly,
 * never with a promise.
 *
 * `bytes` charges each event 2 bytes per UTF-16 unit of its data plus MEMORY_EVENT_OVERHEAD_BYTES, and each
 * stream 2 bytes per unit of its id plus MEMORY_STREAM_OVERHEAD_BYTES. Whenever `bytes` exceeds `maxBytes`,
 * the oldest events of all sessions and streams (in the order they were appended) are purged until it does
 * not; an event larger than the bound is purged at once, after its live delivery. A closed stream is
 * forgotten once it holds no events. Only open streams that hold no events can keep `bytes` above the bound.
 */
export class MemoryEventStore implements EventStore {
  readonly maxBytes: number;
  private used = 0;
  private streams = 0;
  /** Each session's streams: the stream itself while it has one (an idle session's usual case), else a map. */
  private readonly sessions = new Map<string, Stream | Map<string, Stream>>();
  /**
   * One entry per event appended, in append order: its stream. A stream's first entry still queued is its
   * lowest held event, so entries need no index. Entries before `head` are consumed (their events purged);
   * `stale` entries from `head` on belong to dead streams.
   */
  private queue: Stream[] = [];
  /** The stream last opened or found: a POST's stream is opened, appended to and closed in a row. */
  private last: Stream | undefined;
  private head = 0;
  private stale = 0;
  private purged = 0;

  constructor(options: MemoryEventStoreOptions = {}) {
    const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
    if (!(maxBytes > 0) || !Number.isFinite(maxBytes)) {
      throw new RangeError(`maxBytes must be a positive number, got ${maxBytes}`);
    }
    this.maxBytes = maxBytes;
  }

  /** Bytes charged for what is held now (see the class comment); 0 when no stream is left. */
  get bytes(): number {
    return this.used;
  }

  /** Events purged so far to stay within `maxBytes`. */
  get purgedEvents(): number {
    return this.purged;
  }

  /** Sessions that have at least one stream. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Streams of all sessions, open or closed. */
  get streamCount(): number {
    return this.streams;
  }

  open(sessionId: string, streamId: string): StreamAppender {
    const held = this.sessions.get(sessionId);
    let stream: Stream;
    if (held === undefined) {
      stream = new Stream(streamId, sessionId, this);
      this.sessions.set(sessionId, stream);
    } else if (held instanceof Stream) {
      if (held.id === streamId) return held;
      stream = new Stream(streamId, sessionId, this);
      this.sessions.set(
        sessionId,
        new Map([
          [held.id, held],
          [streamId, stream],
        ]),
      );
    } else {
      const known = held.get(streamId);
      if (known !== undefined) return known;
      stream = new Stream(streamId, sessionId, this);
      held.set(streamId, stream);
    }
    this.last = stream;
    this.streams++;
    this.used += streamCost(streamId);
    if (this.used > this.maxBytes) this.purge();
    return stream;
  }

  append(sessionId: string, streamId: string, data: string): number {
    const stream = this.find(sessionId, streamId);
    if (stream === undefined) throw new UnknownStreamError(streamId);
    return this.appendTo(stream, data);
  }

  /** @internal `append` on a stream already found, by its ids or as its own appender. */
  appendTo(stream: Stream, data: string): number {
    if (stream.dead) throw new UnknownStreamError(stream.id);
    if (stream.closed) throw new StreamClosedError(stream.id);
    const index = stream.base + stream.events.push(data) - 1;
    this.queue.push(stream);
    this.used += eventCost(data);
    if (this.used > this.maxBytes) this.purge();
    return index;
  }

  after(sessionId: string, streamId: string, index: number): Replay {
    if (!Number.isInteger(index) || index < -1) {
      throw new RangeError(`index must be an integer >= -1, got ${index}`);
    }
    const stream = this.find(sessionId, streamId);
    if (stream === undefined) throw new UnknownStreamError(streamId);
    const next = stream.base + stream.events.length;
    if (index >= next) throw new UnknownEventError(streamId, index, next);
    if (index + 1 < stream.low) throw new EventsPurgedError(streamId, index, stream.low);
    return { events: stream.events.slice(index + 1 - stream.base), closed: stream.closed };
  }

  streamClosed(sessionId: string, streamId: string): void {
    const stream = this.find(sessionId, streamId);
    if (stream === undefined) return;
    stream.closed = true;
    if (stream.low === stream.base + stream.events.length) this.forget(stream);
    // Appends grow an array by 16 slots at least; a closed stream keeps its events in an exact copy.
    else stream.events = stream.events.slice();
  }

  sessionClosed(sessionId: string): void {
    const held = this.sessions.get(sessionId);
    if (held === undefined) return;
    this.sessions.delete(sessionId);
    for (const stream of held instanceof Stream ? [held] : held.values()) {
      const { events } = stream;
      for (let i = stream.low - stream.base; i < events.length; i++) this.used -= eventCost(events[i]);
      this.stale += events.length - (stream.low - stream.base);
      this.used -= streamCost(stream.id);
      this.streams--;
      stream.dead = true;
      stream.events = [];
    }
    this.tidy();
  }

  private find(sessionId: string, streamId: string): Stream | undefined {
    const last = this.last;
    if (last !== undefined && last.id === streamId && last.sessionId === sessionId && !last.dead) return last;
    const held = this.sessions.get(sessionId);
    if (held instanceof Stream) return held.id === streamId ? held : undefined;
    return held?.get(streamId);
  }

  /** Purges the oldest events until `bytes` is within the bound or nothing is left to purge. */
  private purge(): void {
    const queue = this.queue;
    while (this.used > this.maxBytes && this.head < queue.length) {
      const stream = queue[this.head++];
      if (stream.dead) {
        this.stale--;
        continue;
      }
      this.used -= eventCost(stream.events[stream.low - stream.base]);
      this.purged++;
      stream.events[stream.low - stream.base] = '';
      const purged = ++stream.low - stream.base;
      if (purged === stream.events.length) {
        stream.events = [];
        stream.base = stream.low;
        if (stream.closed) this.forget(stream);
      } else if (purged >= COMPACT_MIN && purged * 2 >= stream.events.length) {
        stream.events = stream.events.slice(purged);
        stream.base = stream.low;
      }
    }
    this.tidy();
  }

  /** Drops a stream that holds no events (so it has no queue entries), and its session if that was the last. */
  private forget(stream: Stream): void {
    if (this.last === stream) this.last = undefined;
    const held = this.sessions.get(stream.sessionId)!;
    if (held instanceof Stream) {
      this.sessions.delete(stream.sessionId);
    } else {
      held.delete(stream.id);
      // Back to one stream: held without a map again.
      if (held.size === 1) this.sessions.set(stream.sessionId, held.values().next().value!);
    }
    this.streams--;
    this.used -= streamCost(stream.id);
  }

  /**
   * Copies the live queue entries once consumed and stale ones outnumber them (amortized O(1) per event), and
   * empties the queue as soon as nothing in it is held.
   */
  private tidy(): void {
    const queue = this.queue;
    const garbage = this.head + this.stale;
    const held = queue.length - garbage;
    if (garbage === 0 || (held > 0 && (garbage < COMPACT_MIN || garbage < held))) return;
    const live: Stream[] = [];
    for (let i = this.head; i < queue.length; i++) if (!queue[i].dead) live.push(queue[i]);
    this.queue = live;
    this.head = 0;
    this.stale = 0;
  }
}
