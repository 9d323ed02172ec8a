import { createHash } from 'node:crypto';
import type { RedisClient } from '../eventstore/redis-client.js';
import type { Claims } from './claims.js';
import { runScript, script } from './lua-script.js';

// KEYS[1]: the claim. ARGV: this process, the TTL in ms, a holder found gone ('' when none). The claim becomes this
// process's when nobody holds it, this process already does, or the holder is the one found gone; its TTL starts
// again. Answers the holder.
const CLAIM = script(`
local held = redis.call('GET', KEYS[1])
if held == false or held == ARGV[1] or held == ARGV[3] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return ARGV[1]
end
return held`);

const RELEASE = script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`);

/** Claims as Redis keys `<prefix>:claim:<SHA-256 of the name>`, each the id of the process holding it. */
export class RedisClaims implements Claims {
  constructor(
    private readonly client: RedisClient,
    private readonly keyPrefix: string,
    private readonly nodeId: string,
  ) {}

  async claim(name: string, ttlMs: number, gone = ''): Promise<string> {
    return (await runScript(this.client, CLAIM, [this.key(name)], [this.nodeId, ttlMs, gone])) as string;
  }

  async release(name: string): Promise<void> {
    await runScript(this.client, RELEASE, [this.key(name)], [this.nodeId]);
  }

  private key(name: string): string {
    return `${this.keyPrefix}:claim:${createHash('sha256').update(name).digest('base64url')}`;
  }
}
