import { type Clock, systemClock } from '../util/clock.js';
import type { HTTPExchange } from './exchange.js';
import type { Refuse } from './intake.js';

/** How much one caller may ask of an HTTP endpoint: its principal, or an anonymous client's address. */
export interface RateLimitOptions {
  /** Requests one caller may send per `windowMs`; past it 429 with Retry-After. Default: no bound. */
  requests?: number;
  /** The window `requests` counts in, in milliseconds. Default 60 s. */
  windowMs?: number;
  /** POSTs one caller may have in flight at once (each until its response ends); past it 429. Default: no bound. */
  concurrent?: number;
  /** Callers remembered at most; past it the one seen least recently with nothing in flight is forgotten. 100,000. */
  maxCallers?: number;
  clock?: Pick<Clock, 'now'>;
}

interface Usage {
  windowStart: number;
  sent: number;
  inFlight: number;
}

const DEFAULT_WINDOW_MS = 60_000;
const DEFAULT_MAX_CALLERS = 100_000;

/**
 * Bounds each caller's requests per window and POSTs in flight, in one process (a fixed window per caller).
 * Promise: a request past a bound is refused with 429 before its body is read, with a message naming the bound
 * and, for the window, a Retry-After of when it opens again; anonymous callers are told apart by address, so one
 * of them cannot use up another's allowance.
 */
export class RateLimiter {
  private readonly requests: number;
  private readonly windowMs: number;
  private readonly concurrent: number;
  private readonly maxCallers: number;
  private readonly clock: Pick<Clock, 'now'>;
  /** By caller, least recently seen first. */
  private readonly callers = new Map<unknown, Usage>();

  constructor(options: RateLimitOptions) {
    this.requests = options.requests ?? Number.POSITIVE_INFINITY;
    this.windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
    this.concurrent = options.concurrent ?? Number.POSITIVE_INFINITY;
    this.maxCallers = options.maxCallers ?? DEFAULT_MAX_CALLERS;
    this.clock = options.clock ?? systemClock;
    for (const [name, value] of [
      ['requests', this.requests],
      ['windowMs', this.windowMs],
      ['concurrent', this.concurrent],
    ] as const) {
      if (!(value >= 1)) throw new RangeError(`rateLimit.${name} must be at least 1, not ${value}`);
    }
  }

  /** Counts `exchange` against its caller's bounds: true when it may be served, false once refused. */
  admit(exchange: HTTPExchange, refuse: Refuse): boolean {
    const principal = exchange.principal;
    const who = principal ?? `\0${exchange.remoteAddress ?? ''}`;
    const caller =
      principal === undefined ? `the anonymous clients at ${exchange.remoteAddress}` : 'this client';
    const now = this.clock.now();
    let usage = this.callers.get(who);
    if (usage === undefined) {
      usage = { windowStart: now, sent: 0, inFlight: 0 };
      this.remember(who, usage);
    } else {
      // Seen now: to the back of the order.
      this.callers.delete(who);
      this.callers.set(who, usage);
      if (now - usage.windowStart >= this.windowMs) {
        usage.windowStart = now;
        usage.sent = 0;
      }
    }
    if (usage.sent >= this.requests) {
      const seconds = Math.max(1, Math.ceil((usage.windowStart + this.windowMs - now) / 1000));
      refuse(
        exchange,
        429,
        `Too Many Requests: ${caller} sent the maximum of ${this.requests} requests in ${this.windowMs / 1000} s; retry in ${seconds} s`,
        { headers: { 'retry-after': String(seconds) } },
      );
      return false;
    }
    if (exchange.method === 'POST') {
      if (usage.inFlight >= this.concurrent) {
        refuse(
          exchange,
          429,
          `Too Many Requests: ${caller} has the maximum of ${this.concurrent} requests in flight; wait for one to end`,
          { headers: { 'retry-after': '1' } },
        );
        return false;
      }
      usage.inFlight++;
      const counted = usage;
      exchange.onClose(() => {
        counted.inFlight--;
      });
    }
    usage.sent++;
    return true;
  }

  private remember(who: unknown, usage: Usage): void {
    if (this.callers.size >= this.maxCallers) {
      for (const [old, kept] of this.callers) {
        if (kept.inFlight > 0) continue;
        this.callers.delete(old);
        break;
      }
    }
    this.callers.set(who, usage);
  }
}
