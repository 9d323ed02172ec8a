import { createRedisClient, type RedisClient, type RedisClientOptions } from './redis-client.js';
import { createRedisClusterClient } from './redis-cluster-client.js';

/**
 * Where Redis is: the URL of one server (`redis://[user:password@]host:port[/db]`, `rediss://` for TLS), or a few
 * nodes of a Redis Cluster to start from, `{ cluster: ['host:port', …] }` (or URLs): the client finds the others.
 */
export type RedisAddress = string | { readonly cluster: readonly string[] };

/** Whether `redis` is an address to connect to rather than a client already made. */
export function isRedisAddress(redis: RedisClient | RedisAddress): redis is RedisAddress {
  return typeof redis === 'string' || Array.isArray((redis as { cluster?: unknown }).cluster);
}

/** A client of the Redis at `address`, made by `createRedisClient` or `createRedisClusterClient`. */
export function connectRedis(address: RedisAddress, options?: RedisClientOptions): RedisClient {
  return typeof address === 'string'
    ? createRedisClient(address, options)
    : createRedisClusterClient(address.cluster, options);
}
