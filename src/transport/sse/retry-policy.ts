/**
 * How a client transport reconnects after losing its connection: a budget of attempts and an
 * exponential backoff between them. The budget counts consecutive failures; the transport resets it
 * once a connection is up again.
 */
export interface RetryPolicy {
  /** Consecutive failed attempts after which the transport gives up and closes; 0 never reconnects. */
  maxAttempts: number;
  /** The backoff before the first attempt; it doubles with each further one. */
  initialDelayMs: number;
  /** The ceiling of the backoff. */
  maxDelayMs: number;
  /**
   * 'full': wait a uniformly random time between 0 and the backoff, so that clients dropped together
   * do not all come back together; 'none': wait exactly the backoff.
   */
  jitter: 'full' | 'none';
}

/** 5 attempts, 500 ms doubling up to 10 s, full jitter. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  maxAttempts: 5,
  initialDelayMs: 500,
  maxDelayMs: 10_000,
  jitter: 'full',
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
  if (policy.jitter !== 'full' && policy.jitter !== 'none') {
    throw new RangeError(`retry.jitter must be 'full' or 'none', got ${String(policy.jitter)}`);
  }
  return policy;
}

/**
 * The wait before attempt number `attempt` (1 for the first reconnection). A delay the server asked
 * for (the SSE `retry:` field, a `Retry-After` header) is honoured as given, without jitter: the
 * server knows when it will be back. `random` returns a number in [0, 1), like Math.random.
 */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  random: () => number,
  serverDelayMs?: number,
): number {
  if (serverDelayMs !== undefined) return serverDelayMs;
  const backoff = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 1));
  return policy.jitter === 'full' ? Math.floor(random() * backoff) : backoff;
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
