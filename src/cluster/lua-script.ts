import { createHash } from 'node:crypto';
import type { RedisClient } from '../eventstore/redis-client.js';
import { redisFailure } from './redis-failure.js';

/** A script, and the SHA-1 EVALSHA names it by. */
export interface Script {
  readonly lua: string;
  readonly sha: string;
}

export const script = (lua: string): Script => ({ lua, sha: createHash('sha1').update(lua).digest('hex') });

/** Runs script `s` on `keys` (all in one hash slot) by its SHA; a Redis failure is a StoreUnavailableError. */
export async function runScript(
  client: RedisClient,
  s: Script,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  try {
    return await client.evalsha(s.sha, keys.length, ...keys, ...args);
  } catch (err) {
    if (!(err instanceof Error && err.message.startsWith('NOSCRIPT'))) throw redisFailure(err);
  }
  // Redis does not have the script yet (first use, after a restart, a replica that took over): EVAL sends it
  // and caches it.
  try {
    return await client.eval(s.lua, keys.length, ...keys, ...args);
  } catch (err) {
    throw redisFailure(err);
  }
}
