import { createHash } from 'node:crypto';
import type { RedisClient } from '../eventstore/redis-client.js';
import type { ListenLeases } from '../server/http/modern/listen-streams.js';
import type { HeldLeases } from './held-leases.js';
import { redisFailure } from './redis-failure.js';

// KEYS[1]: a principal's listen streams, a sorted set of `<node>.<n>` scored by when its lease ends (Redis's
// clock, so hosts' clocks do not matter). ARGV: the max, the member, the lease in ms. Leases past their end
// (of processes that died) are dropped first; answers 1 when the stream is counted, 0 when the max is reached.
const ACQUIRE = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

/**
 * The per-principal bound on listen streams, counted over every process of a cluster: each stream holds a
 * lease in `<prefix>:listens:<SHA-256 of the principal>` (anonymous clients are counted by their address, as in one
 * process), renewed while it is open (`HeldLeases`) and removed when it closes. A process that dies stops renewing,
 * so its streams stop counting within a lease, as its clients listen again elsewhere; a lease Redis lost (restarted
 * empty) counts again at the next renewal, so the bound may be passed for that long. Costs one script per open, one
 * command per close, and per renewal one script per principal with streams here.
 */
export class RedisListenLeases implements ListenLeases {
  private next = 0;

  constructor(
    private readonly client: RedisClient,
    private readonly keyPrefix: string,
    private readonly nodeId: string,
    private readonly leases: HeldLeases,
  ) {}

  async acquire(principal: string | undefined, max: number): Promise<(() => void) | undefined> {
    const key = this.keyOf(principal);
    const member = `${this.nodeId}.${this.next++}`;
    let taken: unknown;
    try {
      taken = await this.client.eval(ACQUIRE, 1, key, max, member, this.leases.leaseMs);
    } catch (err) {
      throw redisFailure(err);
    }
    return taken === 1 ? this.leases.hold(key, member) : undefined;
  }

  private keyOf(principal: string | undefined): string {
    const name = principal === undefined ? '-' : createHash('sha256').update(principal).digest('base64url');
    return `${this.keyPrefix}:listens:${name}`;
  }
}
