// `mcpwire/cluster`: several processes serving one endpoint through Redis. Apart from the root so that only users
// of Redis load ioredis (an optional peer dependency, loaded the first time a Redis client is made).
export { connectRedis, type RedisAddress } from '../eventstore/redis-address.js';
export { createRedisClient, type RedisClient, type RedisClientOptions } from '../eventstore/redis-client.js';
export { createRedisClusterClient } from '../eventstore/redis-cluster-client.js';
export { RedisEventStore, type RedisEventStoreOptions } from '../eventstore/redis-event-store.js';
export { StoreUnavailableError } from '../eventstore/store-unavailable-error.js';
export { RedisCluster } from './redis-cluster.js';
export type { RedisClusterOptions } from './redis-cluster-options.js';
export { SharedRequestStateKeys, type SharedRequestStateKeysOptions } from './request-state-keys.js';
export { RedisTaskStore, type RedisTaskStoreOptions } from './tasks/redis-task-store.js';
