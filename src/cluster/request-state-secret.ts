import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisFailure } from './session-store.js';

// Sets the drawn secret unless one is there, and answers the one that is: the first process of a cluster
// draws it, every later one (on any host) reads it.
const TAKE = "redis.call('SET', KEYS[1], ARGV[1], 'NX'); return redis.call('GET', KEYS[1])";

/**
 * The secret that seals 2026-07-28 `requestState` for every process of a cluster, kept in Redis under
 * `<keyPrefix>:request-state-secret` with no TTL: drawn by whichever process asks first, then the same for
 * all, so a client's retry sealed by one process opens on any other. Whoever can read Redis can forge
 * requestState with it, as they could already alter the sessions Redis keeps.
 */
export async function takeSharedSecret(client: Redis, keyPrefix: string): Promise<string> {
  try {
    return (await client.eval(
      TAKE,
      1,
      `${keyPrefix}:request-state-secret`,
      randomBytes(32).toString('base64url'),
    )) as string;
  } catch (err) {
    throw redisFailure(err);
  }
}
