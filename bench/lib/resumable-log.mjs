// What a server whose SSE streams can be resumed must do with each event, written as plainly as it can be, for
// `ceiling.mjs --resumable` and the floors of `broadcast-cost.mjs --streams`: give the event an id that names its
// stream and its place in it, and keep it for a client that comes back with Last-Event-ID, within a bound of bytes
// past which the oldest events of all streams go. Beside mcpwire's default event store, it says what resumability
// itself costs. It serves no replay: no scenario resumes from the ceiling, and keeping the events is the cost that
// every event pays.

/** Past this many bytes waiting for a reader, its stream is ended (mcpwire's SSEWriter default). */
const MAX_BUFFERED = 4 * 1024 * 1024;
/** notifications/message's level `info` in the spec's order (debug 0, info 1, notice 2, …). */
const INFO = 1;

/**
 * A broadcast's write to one session's GET stream `res` (a node:http response), as a resumable server must make
 * it: not to a session whose log level is above info, nor to a stream that ended; a reader more than 4 MiB behind
 * is cut instead; else the event is kept in `log` on the session's stream `events` and written with its id.
 * `frame` is the event's `data:` line and its end, built once for every stream. Answers whether it was written.
 */
export function writeResumable(log, session, res, body, frame) {
  if (session.minLevel > INFO || res.writableEnded || res.destroyed) return false;
  if (res.writableLength > MAX_BUFFERED) {
    res.end();
    return false;
  }
  res.write(`id: ${log.append(session.events, body)}\n${frame}`);
  return true;
}

/** The bound of what is kept, as mcpwire's MemoryEventStore has by default. */
const MAX_BYTES = 10 * 1024 * 1024;
/** Bytes charged per event beside its text: its slots in its stream and in the order of appends. */
const PER_EVENT = 32;

/** Every event the stream was given has been purged (or it was given none). */
const drained = (stream) => stream.first === stream.base + stream.events.length;

export class ResumableLog {
  #max;
  /** Streams by id, as a resuming GET would look them up. */
  #streams = new Map();
  /** The stream of each event kept, oldest first, from `#head` on. */
  #order = [];
  #head = 0;
  #bytes = 0;

  constructor(maxBytes = MAX_BYTES) {
    this.#max = maxBytes;
  }

  /** Bytes charged for the events kept. */
  get bytes() {
    return this.#bytes;
  }

  /** Whether stream `id` is still known: open, or closed with events kept. */
  has(id) {
    return this.#streams.has(id);
  }

  /** A new stream: its events are `events[i - base]` for i from `first` on. */
  open(id) {
    const stream = { id, events: [], base: 0, first: 0, closed: false };
    this.#streams.set(id, stream);
    return stream;
  }

  /** Keeps `data` as the stream's next event; answers the event's id. */
  append(stream, data) {
    const index = stream.base + stream.events.push(data) - 1;
    this.#order.push(stream);
    this.#bytes += 2 * data.length + PER_EVENT;
    if (this.#bytes > this.#max) this.#purge();
    return `${stream.id}_${index}`;
  }

  /** The stream ends: it is forgotten once its events are purged (at once when none is left). */
  close(stream) {
    stream.closed = true;
    if (drained(stream)) this.#streams.delete(stream.id);
  }

  #purge() {
    while (this.#bytes > this.#max && this.#head < this.#order.length) {
      const stream = this.#order[this.#head++];
      const slot = stream.first++ - stream.base;
      this.#bytes -= 2 * stream.events[slot].length + PER_EVENT;
      stream.events[slot] = undefined;
      if (drained(stream)) {
        stream.events = [];
        stream.base = stream.first;
        if (stream.closed) this.#streams.delete(stream.id);
      } else if (slot >= 1024 && slot * 2 >= stream.events.length) {
        stream.events = stream.events.slice(slot + 1);
        stream.base = stream.first;
      }
    }
    if (this.#head >= 65536 && this.#head * 2 >= this.#order.length) {
      this.#order = this.#order.slice(this.#head);
      this.#head = 0;
    }
  }
}
