import { createHash } from 'node:crypto';
import type { RedisClient } from '../eventstore/redis-client.js';
import type { SharedRequestCounts } from '../http/rate-limiter.js';
import { runScript, script } from './lua-script.js';

// KEYS[1]: one caller's requests in its current window. ARGV[1]: the window in ms. Counts one more; the first of a
// window starts it (a key without an expiry is given one, so no count outlives its window). Answers the count and
// the ms left in the window.
const COUNT = script(`
local n = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return {n, left}`);

/**
 * Each caller's requests per window over every process of a cluster, for the handlers' `rateLimit`: a fixed window
 * per caller in `<prefix>:rate:p:<SHA-256 of the principal>` (anonymous callers: `<prefix>:rate:a:<address>`),
 * begun by its first request on any process, on Redis's clock. One script per request.
 */
export class RedisRequestCounts implements SharedRequestCounts {
  constructor(
    private readonly client: RedisClient,
    private readonly keyPrefix: string,
  ) {}

  async count(principal: string | undefined, address: string | undefined, windowMs: number) {
    const key =
      principal === undefined
        ? `${this.keyPrefix}:rate:a:${address ?? '-'}`
        : `${this.keyPrefix}:rate:p:${createHash('sha256').update(principal).digest('base64url')}`;
    const [sent, resetMs] = (await runScript(this.client, COUNT, [key], [windowMs])) as [number, number];
    return { sent, resetMs };
  }
}
