import { randomBytes } from 'node:crypto';
import type { RedisClient } from '../eventstore/redis-client.js';
import type { RequestStateKey, RequestStateSealer } from '../server/modern/request-state.js';
import { type Clock, systemClock } from '../util/clock.js';
import { redisFailure } from './redis-failure.js';

/** Default `propagationMs`: a new key opens everywhere this long before any process signs with it. */
export const DEFAULT_KEY_PROPAGATION_MS = 30_000;

export interface SharedRequestStateKeysOptions {
  /** Draws a new key when the newest is this old (ms); 0, the default: only `rotate()` does. */
  rotateEveryMs?: number;
  /**
   * See DEFAULT_KEY_PROPAGATION_MS. Each process refreshes three times per this period (`start`), so every
   * one opens a new key before any signs with it, given clocks that differ by less than a third of it.
   */
  propagationMs?: number;
  /** How long a replaced key still opens once its successor signs: at least the sealer's TTL (default 5 min). */
  graceMs?: number;
  /** What `refresh` takes the time from, until `start` gives another (default the system's). */
  clock?: Clock;
}

// KEYS[1]: the hash of keys, id -> JSON {s: secret, at: ms from which it signs}. ARGV: now, a drawn id and
// secret, rotateEveryMs, propagationMs, graceMs, force (1: rotate now). The first caller adds a key that signs
// at once; a rotation adds one that signs after the propagation delay, so that every process opens it before
// any signs with it. A key is dropped once a later key has signed for the grace period: its states expired.
// Answers the keys left, as id, JSON pairs.
const SYNC = `
local now, rotate, prop, grace = tonumber(ARGV[1]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local all = redis.call('HGETALL', KEYS[1])
local newest = nil
for i = 2, #all, 2 do
  local at = cjson.decode(all[i]).at
  if newest == nil or at > newest then newest = at end
end
if newest == nil then
  redis.call('HSET', KEYS[1], ARGV[2], cjson.encode({s = ARGV[3], at = now}))
elseif ARGV[7] == '1' or (rotate > 0 and newest + rotate <= now) then
  redis.call('HSET', KEYS[1], ARGV[2], cjson.encode({s = ARGV[3], at = math.max(now, newest) + prop}))
end
all = redis.call('HGETALL', KEYS[1])
local ats = {}
for i = 2, #all, 2 do ats[#ats + 1] = cjson.decode(all[i]).at end
local out = {}
for i = 1, #all, 2 do
  local at, superseded = cjson.decode(all[i + 1]).at, false
  for _, later in ipairs(ats) do
    if later > at and later + grace <= now then superseded = true end
  end
  if superseded then redis.call('HDEL', KEYS[1], all[i])
  else out[#out + 1] = all[i]; out[#out + 1] = all[i + 1] end
end
return out`;

/**
 * The `requestState` keys every process of a cluster shares, kept in Redis under `<keyPrefix>:request-state-keys`
 * (no TTL): each `refresh` reads them (creating the first, and rotating when due) and gives the sealers
 * attached here the newest key that signs by now to sign with and every key kept to open with. So a state
 * sealed by any process opens on every other, and one sealed under the previous key still opens for the grace
 * period after the next one took over. Whoever can read Redis can forge requestState with them, as they could
 * already change the sessions Redis keeps.
 */
export class SharedRequestStateKeys {
  private readonly key: string;
  private readonly sealers = new Set<RequestStateSealer>();
  private ring: RequestStateKey[] = [];
  readonly rotateEveryMs: number;
  readonly propagationMs: number;
  readonly graceMs: number;
  private clock: Clock;
  private timer: unknown;

  constructor(
    private readonly client: RedisClient,
    keyPrefix: string,
    options: SharedRequestStateKeysOptions = {},
  ) {
    this.key = `${keyPrefix}:request-state-keys`;
    this.rotateEveryMs = options.rotateEveryMs ?? 0;
    this.propagationMs = options.propagationMs ?? DEFAULT_KEY_PROPAGATION_MS;
    this.graceMs = options.graceMs ?? 300_000;
    this.clock = options.clock ?? systemClock;
  }

  /** Refreshes three times per `propagationMs` on `clock` until `stop`; failures go to `onerror`. */
  start(clock: Clock, onerror: (err: unknown) => void): void {
    this.clock = clock;
    const tick = () => {
      this.timer = clock.setTimeout(tick, Math.max(1, Math.floor(this.propagationMs / 3)));
      this.refresh().catch(onerror);
    };
    tick();
  }

  stop(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The keys as a sealer takes them (the signer first); empty before the first `refresh`. */
  get keys(): readonly RequestStateKey[] {
    return this.ring;
  }

  /** Keeps `sealer` on these keys from now on. */
  attach(sealer: RequestStateSealer): void {
    this.sealers.add(sealer);
    if (this.ring.length > 0) sealer.setKeys(this.ring);
  }

  /** Reads the keys (creating or rotating them as due) and applies them; rejects when Redis fails. */
  refresh(): Promise<readonly RequestStateKey[]> {
    return this.sync(false);
  }

  /** Adds a key that signs after `propagationMs`; the current one opens until the grace period after that. */
  rotate(): Promise<readonly RequestStateKey[]> {
    return this.sync(true);
  }

  private async sync(force: boolean): Promise<readonly RequestStateKey[]> {
    const now = this.clock.now();
    let flat: string[];
    try {
      // biome-ignore format: the script's arguments, in its order
      flat = (await this.client.eval(SYNC, 1, this.key, now, `r${randomBytes(6).toString('hex')}`,
        randomBytes(32).toString('base64url'), this.rotateEveryMs, this.propagationMs, this.graceMs,
        force ? '1' : '0')) as string[];
    } catch (err) {
      throw redisFailure(err);
    }
    const entries: { id: string; secret: string; at: number }[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      const { s, at } = JSON.parse(flat[i + 1]) as { s: string; at: number };
      entries.push({ id: flat[i], secret: s, at });
    }
    // Newest first; the signer is the newest already due, and every other key only opens.
    entries.sort((a, b) => b.at - a.at);
    const signer = entries.find((e) => e.at <= now) ?? entries[entries.length - 1];
    this.ring = [signer, ...entries.filter((e) => e !== signer)].map(({ id, secret }) => ({ id, secret }));
    for (const sealer of this.sealers) sealer.setKeys(this.ring);
    return this.ring;
  }
}
