import type { Clock } from '../../../util/clock.js';

/*
 * JSON-response mode: a POST's JSON answer is written once every message relayed to the GET stream for its
 * requests has left this process, and one event-loop turn later, so that the client reads them first.
 *
 * What that guarantees, on loopback, to a client that handles each connection's events in the order
 * they arrive: `flushed` resolves only after the kernel accepted every relayed byte of the GET
 * connection (write(2) returned; through the web adapter, once the runtime took them from the response).
 * Loopback hands a segment to the receiving socket within that system call, or later from a per-CPU
 * queue, in order; the answer's write(2) comes strictly after, and one turn later, which also gives the
 * client's loop time to wake for the GET bytes alone. So the GET socket becomes readable first, and
 * epoll reports ready sockets in the order they became ready: a client event loop (libuv) runs the GET's
 * read callback, and the parsing of its events with it (microtasks run after each callback), before the
 * POST's. Not excluded: the process moved to another CPU between the two writes while the first CPU's
 * queue waits for its softirq thread, which the extra turn only makes unlikely.
 *
 * Limits: this orders arrival, not handling (a client that parses the GET stream later, or on another
 * thread, can still see the answer first). Over a real network the two connections are independent
 * (a retransmitted segment, another path, a buffering proxy): the answer may arrive first, and only SSE
 * responses, which carry both on one stream, order them everywhere. A GET reader that stops reading
 * holds an answer back `RELAY_WAIT_MS` at most (`afterRelayed`): past that the answer goes out ahead of what
 * the GET stream still buffers, which keeps its own order and reaches the reader when it reads again.
 */
/**
 * JSON-response mode: how long an answer waits for the messages relayed to the GET stream for its requests to
 * leave. A reader that keeps up takes them in milliseconds; one that stopped reading must not hold its own
 * answers (whose POSTs it does read) for longer than this.
 */
export const RELAY_WAIT_MS = 1000;

/** The GET stream, as the answers that wait for it see it. */
export interface RelayStream {
  /** Set when a wait ran out while the reader had not read: later answers do not wait until it catches up. */
  stalled: boolean;
  /** Undefined when everything written so far was handed on; else when it will have been. Never rejects. */
  flushed(): Promise<void> | undefined;
}

/**
 * Calls `then` once every message written so far on `relay` has been handed on, or `RELAY_WAIT_MS` later,
 * whichever comes first; at once while an earlier wait found the reader stalled and it has not caught up.
 */
export function afterRelayed(relay: RelayStream, clock: Clock, then: () => void): void {
  const flushed = relay.stalled ? undefined : relay.flushed();
  if (flushed === undefined) {
    then();
    return;
  }
  let waiting = true;
  const go = () => {
    if (!waiting) return;
    waiting = false;
    then();
  };
  const timer = clock.setTimeout(() => {
    relay.stalled = true;
    go();
  }, RELAY_WAIT_MS);
  flushed.then(() => {
    clock.clearTimeout(timer);
    relay.stalled = false;
    go();
  });
}
