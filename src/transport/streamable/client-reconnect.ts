/**
 * How a client retries a stream that dropped: up to `maxAttempts` reconnections in a row that bring
 * nothing, waiting `initialDelayMs`, then twice as long each time up to `maxDelayMs`, each wait spread
 * by ±`jitter` (a fraction) so that many clients cut off together do not return together.
 */
export interface ReconnectPolicy {
  /** Failed reconnections in a row before giving up; any event or keep-alive received resets the count. */
  maxAttempts: number;
  /** The first wait, in ms. */
  initialDelayMs: number;
  /** The longest wait, in ms. */
  maxDelayMs: number;
  /** How far a wait may stray from the exponential value, as a fraction of it (0 to 1). */
  jitter: number;
}

export const DEFAULT_RECONNECT_POLICY: Readonly<ReconnectPolicy> = {
  maxAttempts: 5,
  initialDelayMs: 1000,
  maxDelayMs: 30_000,
  jitter: 0.2,
};

/** The defaults with `overrides` applied; throws RangeError naming the first field out of range. */
export function reconnectPolicy(overrides: Partial<ReconnectPolicy> = {}): ReconnectPolicy {
  const policy = { ...DEFAULT_RECONNECT_POLICY, ...overrides };
  const check = (field: keyof ReconnectPolicy, ok: boolean) => {
    if (!ok) throw new RangeError(`reconnect.${field} is out of range: ${policy[field]}`);
  };
  check('maxAttempts', Number.isInteger(policy.maxAttempts) && policy.maxAttempts >= 0);
  check('initialDelayMs', Number.isFinite(policy.initialDelayMs) && policy.initialDelayMs >= 0);
  check('maxDelayMs', Number.isFinite(policy.maxDelayMs) && policy.maxDelayMs >= policy.initialDelayMs);
  check('jitter', policy.jitter >= 0 && policy.jitter <= 1);
  return policy;
}

/**
 * The wait before reconnection number `attempt` (1 for the first). The server's `retry:` (ms), when it
 * sent one, is the wait: the spec says the client MUST respect it, so it gets neither backoff nor jitter.
 */
export function reconnectDelay(
  policy: ReconnectPolicy,
  attempt: number,
  random: () => number,
  serverRetryMs?: number,
): number {
  if (serverRetryMs !== undefined) return serverRetryMs;
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 1));
  const spread = base * policy.jitter;
  return Math.min(policy.maxDelayMs, Math.max(0, Math.round(base - spread + 2 * spread * random())));
}
