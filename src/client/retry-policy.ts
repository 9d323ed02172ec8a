/**
 * How a client transport tries again after losing its connection or stream: a budget of attempts and an
 * exponential backoff between them, spread by jitter. The budget counts consecutive attempts that
 * brought nothing; the transport resets it once the connection makes progress again (an endpoint, an
 * event, a keep-alive). Both HTTP clients (Streamable and legacy HTTP+SSE) take it as their `retry` option, and a client
 * session re-opens a dropped listen stream by it.
 */
export interface RetryPolicy {
  /** Consecutive failed attempts after which the transport gives up; 0 never tries again. */
  maxAttempts: number;
  /** The backoff before the first attempt, in ms; it doubles with each further one. */
  initialDelayMs: number;
  /** The ceiling of the backoff, in ms. */
  maxDelayMs: number;
  /**
   * The share of each backoff that is random, from 0 to 1: the wait is drawn uniformly between
   * `backoff × (1 − jitter)` and `backoff`. 1 (the default) is "full jitter", which spreads best the
   * clients a server dropped together; 0 waits exactly the backoff.
   */
  jitter: number;
}

/** 5 attempts, 500 ms doubling up to 10 s, full jitter. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  maxAttempts: 5,
  initialDelayMs: 500,
  maxDelayMs: 10_000,
  jitter: 1,
};

/** The defaults with `overrides` applied; throws a RangeError naming the first invalid field. */
export function retryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY, ...overrides };
  for (const field of ['maxAttempts', 'initialDelayMs', 'maxDelayMs'] as const) {
    const value = policy[field];
    if (!Number.isInteger(value) || value < 0) {
      throw new RangeError(`retry.${field} must be a non-negative integer, got ${value}`);
    }
  }
  if (policy.maxDelayMs < policy.initialDelayMs) {
    throw new RangeError(
      `retry.maxDelayMs (${policy.maxDelayMs}) must not be below retry.initialDelayMs (${policy.initialDelayMs})`,
    );
  }
  if (typeof policy.jitter !== 'number' || !(policy.jitter >= 0 && policy.jitter <= 1)) {
    throw new RangeError(`retry.jitter must be a number from 0 to 1, got ${String(policy.jitter)}`);
  }
  return policy;
}

/**
 * The wait before attempt number `attempt` (1 for the first). A delay the server asked for (the SSE
 * `retry:` field, a `Retry-After` header) is the wait, exactly: the spec says a client MUST respect
 * `retry:`, and the server knows when it will be back. `random` returns a number in [0, 1), like
 * Math.random.
 */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  random: () => number,
  serverDelayMs?: number,
): number {
  if (serverDelayMs !== undefined) return serverDelayMs;
  const backoff = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 1));
  return policy.jitter === 0 ? backoff : Math.round(backoff * (1 - policy.jitter * random()));
}

/** Whether an HTTP status may succeed if tried again: 408, 429 and every 5xx. */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** The delay of a `Retry-After` header in milliseconds, when it holds seconds or a date in the future. */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
