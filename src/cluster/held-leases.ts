import type { RedisClient } from '../eventstore/redis-client.js';
import type { Clock } from '../util/clock.js';
import { redisFailure } from './redis-failure.js';

// KEYS[1]: a sorted set of leases `<node>.<n>` scored by when each ends (Redis's clock). ARGV: the lease in ms,
// then the members this process still holds there. A member that is missing is added again: Redis lost it (a
// restart, a failover) or dropped it as lapsed while this process could not reach Redis, and what it counts is
// still there.
const RENEW = `
local t = redis.call('TIME')
local until_ = t[1] * 1000 + math.floor(t[2] / 1000) + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], until_, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])`;

/**
 * The leases this process holds in sorted sets of Redis (each set a bound over the cluster: listen streams of a
 * principal, a caller's requests in flight), renewed three times per `leaseMs` while held, removed when let go. A
 * process that dies stops renewing, so its leases stop counting within `leaseMs`. One script per renewal and key.
 */
export class HeldLeases {
  /** The members held here, by key. */
  private readonly held = new Map<string, Set<string>>();
  private timer: unknown;
  private clock: Clock | undefined;

  constructor(
    private readonly client: RedisClient,
    readonly leaseMs: number,
    private readonly report: (err: unknown) => void,
  ) {}

  /** Keeps `member` of `key` (already in Redis) renewed; the function returned lets it go, in Redis too. */
  hold(key: string, member: string): () => void {
    let members = this.held.get(key);
    if (members === undefined) {
      members = new Set<string>();
      this.held.set(key, members);
    }
    members.add(member);
    const held = members;
    return () => {
      if (!held.delete(member)) return;
      if (held.size === 0 && this.held.get(key) === held) this.held.delete(key);
      this.client.zrem(key, member).catch((err) => this.report(redisFailure(err)));
    };
  }

  /** Renews the leases held here three times per `leaseMs`, on `clock`, until `stop`. */
  start(clock: Clock): void {
    this.clock = clock;
    const period = Math.max(1, Math.floor(this.leaseMs / 3));
    const tick = () => {
      this.timer = clock.setTimeout(tick, period);
      for (const [key, members] of this.held) {
        this.client
          .eval(RENEW, 1, key, this.leaseMs, ...members)
          .catch((err) => this.report(redisFailure(err)));
      }
    };
    this.timer = clock.setTimeout(tick, period);
  }

  stop(): void {
    if (this.timer !== undefined) this.clock?.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
