import { createHash } from 'node:crypto';
import type { RedisClient } from '../eventstore/redis-client.js';
import type { RateBounds, SharedRequestCounts, SharedTake } from '../http/rate-limiter.js';
import type { HeldLeases } from './held-leases.js';
import { runScript, script } from './lua-script.js';

// KEYS[1]: one caller's requests in its current window; KEYS[2]: its requests in flight, a sorted set of leases
// `<node>.<n>` scored by when each ends (Redis's clock). ARGV: the window in ms, the requests it allows (0: no
// bound), the requests in flight allowed (0: not counted), the member, the lease in ms. Counts the request in the
// window (its first starts it); past the bound nothing more. Then, when counted in flight, drops lapsed leases and
// takes one unless the caller holds the max. Answers the window's count, the ms left in it, and 1 when a lease was
// taken (0 when the max was reached, or none was asked).
const TAKE = script(`
local n = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
local max = tonumber(ARGV[3])
if max == 0 or (tonumber(ARGV[2]) > 0 and n > tonumber(ARGV[2])) then return {n, left, 0} end
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= max then return {n, left, 0} end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[5]), ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return {n, left, 1}`);

/**
 * Each caller's requests over every process of a cluster, for the handlers' `rateLimit`, in one script per request:
 * a fixed window in `<prefix>:rate:{<caller>}` begun by its first request on any process (Redis's clock), and its
 * requests in flight as leases in `<prefix>:rate:{<caller>}:flight`, held while each request runs (`HeldLeases`:
 * renewed, and let go when it ends; a process that dies stops counting within a lease). The caller is `p:` and
 * the SHA-256 of its principal, or `a:` and an anonymous caller's address; the braces keep both keys in one slot.
 */
export class RedisRequestCounts implements SharedRequestCounts {
  private next = 0;

  constructor(
    private readonly client: RedisClient,
    private readonly keyPrefix: string,
    private readonly nodeId: string,
    private readonly leases: HeldLeases,
  ) {}

  async take(
    principal: string | undefined,
    address: string | undefined,
    bounds: RateBounds,
    inFlight: boolean,
  ): Promise<SharedTake> {
    const who =
      principal === undefined
        ? `a:${address ?? '-'}`
        : `p:${createHash('sha256').update(principal).digest('base64url')}`;
    const window = `${this.keyPrefix}:rate:{${who}}`;
    const flight = `${window}:flight`;
    const counted = inFlight && Number.isFinite(bounds.concurrent);
    const member = `${this.nodeId}.${this.next++}`;
    const [sent, resetMs, held] = (await runScript(
      this.client,
      TAKE,
      [window, flight],
      [
        bounds.windowMs,
        Number.isFinite(bounds.requests) ? bounds.requests : 0,
        counted ? bounds.concurrent : 0,
        member,
        this.leases.leaseMs,
      ],
    )) as [number, number, number];
    if (!counted || sent > bounds.requests) return { sent, resetMs };
    return held === 1
      ? { sent, resetMs, release: this.leases.hold(flight, member) }
      : { sent, resetMs, full: true };
  }
}
