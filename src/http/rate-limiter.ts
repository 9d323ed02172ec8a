import { type Clock, systemClock } from '../util/clock.js';
import { retryAfterSeconds } from '../util/retry-after.js';
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
  /** Callers remembered at most; past it one whose window began first, with nothing in flight, is forgotten. 100,000. */
  maxCallers?: number;
  clock?: Pick<Clock, 'now'>;
}

interface Usage {
  windowStart: number;
  sent: number;
  inFlight: number;
}

/** The bounds a limiter puts on each caller (`Infinity`: none). */
export interface RateBounds {
  readonly requests: number;
  readonly windowMs: number;
  readonly concurrent: number;
}

/** What a shared count answered for one request (see `SharedRequestCounts`). */
export interface SharedTake {
  /** Requests in the caller's window, this one included. */
  readonly sent: number;
  /** Milliseconds until the window ends. */
  readonly resetMs: number;
  /** Its place among the caller's requests in flight, to let go when it ends; when one was asked and given. */
  readonly release?: () => void;
  /** The caller has `bounds.concurrent` requests in flight already. */
  readonly full?: true;
}

/**
 * Each caller's requests counted over several processes (a cluster). `take` counts one request of a caller (its
 * principal, else its address) in its current window and, when `inFlight` and `bounds.concurrent` is finite,
 * holds a place among its requests in flight unless it has the max already (not when the window is over its bound),
 * in one round trip. It rejects when that cannot be had: the limiter then counts in its own process until it can
 * again.
 */
export interface SharedRequestCounts {
  take(
    principal: string | undefined,
    address: string | undefined,
    bounds: RateBounds,
    inFlight: boolean,
  ): Promise<SharedTake>;
}

/** A caller's allowance, as `take` gave it for a request it let through. */
export interface Allowance {
  readonly sent: number;
}

/** Why `take` refused a request: a message naming the bound, and when to try again. */
export interface RateRefusal {
  readonly message: string;
  readonly retryAfterSeconds: number;
}

const DEFAULT_WINDOW_MS = 60_000;
const DEFAULT_MAX_CALLERS = 100_000;

/**
 * Bounds each caller's requests per window and POSTs in flight (a fixed window per caller). Promise: a request past a
 * bound is refused with 429 before its body is read, with a message naming the bound and, for the window, a
 * Retry-After of when it opens again; anonymous callers are told apart by address, so one of them cannot use up
 * another's allowance. With `shared` counts both bounds hold over every process that shares them (one round trip per
 * request).
 */
export class RateLimiter implements RateBounds {
  readonly requests: number;
  readonly windowMs: number;
  readonly concurrent: number;
  private readonly maxCallers: number;
  private readonly clock: Pick<Clock, 'now'>;
  /** By principal, and anonymous callers by address; each in order of the window each last began. */
  private readonly principals = new Map<unknown, Usage>();
  private readonly addresses = new Map<string | undefined, Usage>();
  /** The shared count failed last time: told once, then quiet until it answers again. */
  private sharedFailing = false;

  constructor(
    options: RateLimitOptions,
    private readonly shared?: SharedRequestCounts,
    /** Hears why the shared count could not be had (requests are counted here instead), once per outage. */
    private readonly report: (err: unknown) => void = () => {},
  ) {
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
  admit(exchange: HTTPExchange, refuse: Refuse): boolean | Promise<boolean> {
    const post = exchange.method === 'POST';
    const principal = exchange.principal;
    const address = exchange.remoteAddress;
    const shared = this.shared;
    if (shared === undefined) return this.settle(exchange, refuse, post, this.take(principal, address, post));
    return shared.take(typeof principal === 'string' ? principal : undefined, address, this, post).then(
      (taken) => {
        this.sharedFailing = false;
        if (taken.sent > this.requests) {
          const seconds = retryAfterSeconds(taken.resetMs);
          return this.settle(exchange, refuse, post, this.overWindow(principal, address, seconds));
        }
        if (taken.full) return this.settle(exchange, refuse, post, this.tooManyInFlight(principal, address));
        if (taken.release !== undefined) exchange.onClose(taken.release);
        return true;
      },
      (err) => {
        if (!this.sharedFailing) this.report(err);
        this.sharedFailing = true;
        return this.settle(exchange, refuse, post, this.take(principal, address, post));
      },
    );
  }

  /**
   * Counts one request of a caller (its principal, else its address) against its bounds, and in flight when
   * `inFlight` (then `release` it when it ends): the caller's allowance, or why the request is refused.
   */
  take(principal: unknown, address: string | undefined, inFlight: boolean): Allowance | RateRefusal {
    const usage =
      principal === undefined
        ? this.usageOf(this.addresses, address)
        : this.usageOf(this.principals, principal);
    if (usage.sent >= this.requests) {
      const seconds = retryAfterSeconds(usage.windowStart + this.windowMs - this.clock.now());
      return this.overWindow(principal, address, seconds);
    }
    if (inFlight) {
      if (usage.inFlight >= this.concurrent) return this.tooManyInFlight(principal, address);
      usage.inFlight++;
    }
    usage.sent++;
    return usage;
  }

  /** A request `take` counted in flight has ended. */
  release(allowance: Allowance): void {
    (allowance as Usage).inFlight--;
  }

  /** Answers `exchange` as `take` decided: true when it goes on, in flight until it ends when it is a POST. */
  private settle(
    exchange: HTTPExchange,
    refuse: Refuse,
    post: boolean,
    taken: Allowance | RateRefusal,
  ): boolean {
    if ('message' in taken) {
      refuse(exchange, 429, `Too Many Requests: ${taken.message}`, {
        headers: { 'retry-after': String(taken.retryAfterSeconds) },
      });
      return false;
    }
    if (post) exchange.onClose(() => this.release(taken));
    return true;
  }

  private tooManyInFlight(principal: unknown, address: string | undefined): RateRefusal {
    return {
      message: `${callerOf(principal, address)} has the maximum of ${this.concurrent} requests in flight; wait for one to end`,
      retryAfterSeconds: 1,
    };
  }

  private overWindow(principal: unknown, address: string | undefined, seconds: number): RateRefusal {
    return {
      message: `${callerOf(principal, address)} sent the maximum of ${this.requests} requests in ${this.windowMs / 1000} s; retry in ${seconds} s`,
      retryAfterSeconds: seconds,
    };
  }

  /** What `who` used in its window, a new window once the last one is over. */
  private usageOf<K>(callers: Map<K, Usage>, who: K): Usage {
    const now = this.clock.now();
    const usage = callers.get(who);
    if (usage === undefined) {
      if (this.principals.size + this.addresses.size >= this.maxCallers) forgetOne(callers);
      const fresh = { windowStart: now, sent: 0, inFlight: 0 };
      callers.set(who, fresh);
      return fresh;
    }
    if (now - usage.windowStart >= this.windowMs) {
      usage.windowStart = now;
      usage.sent = 0;
      // A new window: to the back of the order, behind the callers gone quiet.
      callers.delete(who);
      callers.set(who, usage);
    }
    return usage;
  }
}

/** Forgets the caller whose window began first, among those with nothing in flight. */
function forgetOne<K>(callers: Map<K, Usage>): void {
  for (const [who, usage] of callers) {
    if (usage.inFlight > 0) continue;
    callers.delete(who);
    return;
  }
}

function callerOf(principal: unknown, address: string | undefined): string {
  return principal === undefined ? `the anonymous clients at ${address}` : 'this client';
}
