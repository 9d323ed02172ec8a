import { type Clock, systemClock } from '../util/clock.js';
import type { HTTPExchange } from './exchange.js';
import { formatRetry, formatSseEvent, type SSEEvent } from './sse-event.js';

/** A comment every 15 s keeps proxies and load balancers from closing an idle stream. */
export const DEFAULT_KEEP_ALIVE_MS = 15_000;
/** Bytes a reader that stopped reading may cost before its connection is dropped. */
export const DEFAULT_MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  // no-transform: compressing proxies would otherwise hold events back to fill their buffers.
  'cache-control': 'no-cache, no-transform',
  // No `Connection` header: node sets it from what the client asked, and HTTP/2 forbids it.
  // nginx buffers responses unless told not to.
  'x-accel-buffering': 'no',
};

const KEEP_ALIVE = ': keepalive\n\n';

export interface SSEWriterOptions {
  /** Extra response headers, e.g. `mcp-session-id`. */
  headers?: Readonly<Record<string, string>>;
  /** Interval of the keep-alive comment; 0 turns it off. Default `DEFAULT_KEEP_ALIVE_MS`. */
  keepAliveMs?: number;
  /** Past this many buffered bytes the connection is dropped. Default `DEFAULT_MAX_BUFFERED_BYTES`. */
  maxBufferedBytes?: number;
  /** Timers for the keep-alive; the system clock unless given. */
  clock?: Clock;
}

/**
 * Sends a whole SSE response at once (`body`: formatted frames): one write with a Content-Length, no timer, for
 * a stream whose every event was known before its response began.
 */
export function sendSseBody(
  exchange: HTTPExchange,
  body: string,
  headers?: Readonly<Record<string, string>>,
): void {
  exchange.writeHead(200, headers === undefined ? SSE_HEADERS : { ...headers, ...SSE_HEADERS });
  exchange.end(body);
}

/** How long a response ended for overflow may take to drain before its connection is cut. */
export const OVERFLOW_GRACE_MS = 30_000;

/**
 * A Server-Sent Events stream over an exchange. Promises: the 200 and its headers are sent with the
 * first event written in the turn of the event loop that constructed the writer (one write, not two),
 * or alone at the end of that turn, so a client of a quiet stream sees them at once; each event is one string written with one `write`; no field can be
 * injected through an id, an event type or data; a reader that stops reading costs at most
 * `maxBufferedBytes` plus one event: the next write (event or keep-alive) that finds more than that
 * still waiting ends the response instead (cut after `OVERFLOW_GRACE_MS` if it never drains) and
 * `overflowed` turns true, so the caller can let the client resume from its event store; writes after
 * close are ignored.
 */
export class SSEWriter {
  private readonly clock: Clock;
  private readonly keepAliveMs: number;
  private readonly maxBufferedBytes: number;
  private timer: unknown;
  private stopped = false;
  private overflow = false;
  private wrote = false;

  constructor(
    private readonly exchange: HTTPExchange,
    options?: SSEWriterOptions,
  ) {
    this.clock = options?.clock ?? systemClock;
    this.keepAliveMs = options?.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
    this.maxBufferedBytes = options?.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    exchange.writeHead(
      200,
      options?.headers === undefined ? SSE_HEADERS : { ...options.headers, ...SSE_HEADERS },
    );
    exchange.onClose(() => this.stop());
    this.schedule();
    queueMicrotask(this.flushHead);
  }

  /** Writes one event; false when it was not written: the stream is closed, or overflowed now. */
  event(e: SSEEvent): boolean {
    return this.send(formatSseEvent(e));
  }

  /** Writes an already formatted frame (from `formatSseEvent`), e.g. one replayed from an event store. */
  frame(frame: string): boolean {
    return this.send(frame);
  }

  /** The event that primes a client to resume: an id and empty data. */
  prime(id: string): boolean {
    return this.send(formatSseEvent({ id, data: '' }));
  }

  /** Tells the client how long to wait before reconnecting, without dispatching an event. */
  retry(ms: number): boolean {
    return this.send(`${formatRetry(ms)}\n`);
  }

  /**
   * Undefined when every event written so far has been handed on, or the stream is closed; otherwise a
   * promise that resolves once they have been, or the stream closed (see `HTTPExchange.flushed`).
   */
  flushed(): Promise<void> | undefined {
    return this.closed ? undefined : this.exchange.flushed();
  }

  /** Ends the response and stops the keep-alive. */
  close(): void {
    if (this.closed) return;
    this.stop();
    this.exchange.end();
  }

  /** True once nothing more can be written: closed here, dropped for overflow, or the client left. */
  get closed(): boolean {
    return this.stopped || this.exchange.closed;
  }

  /** True when the response was ended because the reader fell more than `maxBufferedBytes` behind. */
  get overflowed(): boolean {
    return this.overflow;
  }

  private send(frame: string): boolean {
    if (this.closed) return false;
    // The bound applies to what earlier writes left waiting, so a single event larger than the bound
    // still goes to a reader that keeps up; a stalled reader is caught by the next event or keep-alive.
    if (this.exchange.bytesBuffered > this.maxBufferedBytes) {
      this.overflow = true;
      this.stop();
      // Ended, not destroyed: what is already buffered (at most the bound plus one event) still reaches
      // a reader that wakes up, so it holds the id of the last event it got and resumes from there. A
      // reader that never wakes up is cut after a grace period, which frees the buffer.
      const drained = this.exchange.flushed();
      this.exchange.end();
      if (drained !== undefined) {
        const cut = this.clock.setTimeout(() => this.exchange.destroy(), OVERFLOW_GRACE_MS);
        drained.then(() => this.clock.clearTimeout(cut));
      }
      return false;
    }
    this.wrote = true;
    this.exchange.write(frame);
    return true;
  }

  private readonly flushHead = (): void => {
    if (!this.wrote && !this.closed) this.exchange.flushHeaders();
  };

  private schedule(): void {
    if (this.keepAliveMs === 0 || this.closed) return;
    this.timer = this.clock.setTimeout(this.keepAlive, this.keepAliveMs);
  }

  private readonly keepAlive = (): void => {
    this.timer = undefined;
    if (this.send(KEEP_ALIVE)) this.schedule();
  };

  private stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) {
      this.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
  }
}
