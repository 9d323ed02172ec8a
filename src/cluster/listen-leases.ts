import { createHash } from 'node:crypto';
import type { RedisClient } from '../eventstore/redis-client.js';
import type { ListenLeases } from '../server/http/modern/listen-streams.js';
import type { Clock } from '../util/clock.js';
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

// KEYS[1] as above; ARGV: the lease in ms, then the members this process still holds there. A member that is
// missing is added again: Redis lost it (a restart, a failover) or dropped it as lapsed while this process
// could not reach Redis, and the stream it counts is still open.
const RENEW = `
local t = redis.call('TIME')
local until_ = t[1] * 1000 + math.floor(t[2] / 1000) + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], until_, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])`;

/**
 * The per-principal bound on listen streams, counted over every process of a cluster: each stream holds a
 * lease in `<prefix>:listens:<SHA-256 of the principal>` (anonymous clients are counted by their address, as in one
 * process), renewed three times per `leaseMs` while it is open and removed when it closes. A process that dies
 * stops renewing, so its streams stop counting within `leaseMs`, as its clients listen again elsewhere; a lease
 * Redis lost (restarted empty) counts again at the next renewal, so the bound may be passed for that long. Costs
 * one script per open, one command per close, and per renewal one script per principal with streams here.
 */
export class RedisListenLeases implements ListenLeases {
  /** The members held here, by principal key. */
  private readonly held = new Map<string, Set<string>>();
  private next = 0;
  private timer: unknown;
  private clock: Clock | undefined;

  constructor(
    private readonly client: RedisClient,
    private readonly keyPrefix: string,
    private readonly nodeId: string,
    readonly leaseMs: number,
    private readonly report: (err: unknown) => void,
  ) {}

  async acquire(principal: string | undefined, max: number): Promise<(() => void) | undefined> {
    const key = this.keyOf(principal);
    const member = `${this.nodeId}.${this.next++}`;
    let taken: unknown;
    try {
      taken = await this.client.eval(ACQUIRE, 1, key, max, member, this.leaseMs);
    } catch (err) {
      throw redisFailure(err);
    }
    if (taken !== 1) return undefined;
    const members = this.held.get(key) ?? new Set<string>();
    this.held.set(key, members);
    members.add(member);
    return () => {
      members.delete(member);
      if (members.size === 0 && this.held.get(key) === members) this.held.delete(key);
      this.client.zrem(key, member).catch((err) => this.report(redisFailure(err)));
    };
  }

  /** Renews the leases held here three times per `leaseMs`, on `clock`, until `stop`. */
  start(clock: Clock): void {
    this.clock = clock;
    const tick = () => {
      this.timer = clock.setTimeout(tick, Math.max(1, Math.floor(this.leaseMs / 3)));
      for (const [key, members] of this.held) {
        this.client
          .eval(RENEW, 1, key, this.leaseMs, ...members)
          .catch((err) => this.report(redisFailure(err)));
      }
    };
    this.timer = clock.setTimeout(tick, Math.max(1, Math.floor(this.leaseMs / 3)));
  }

  stop(): void {
    if (this.timer !== undefined) this.clock?.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private keyOf(principal: string | undefined): string {
    const name = principal === undefined ? '-' : createHash('sha256').update(principal).digest('base64url');
    return `${this.keyPrefix}:listens:${name}`;
  }
}
