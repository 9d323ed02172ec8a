// The Redis pieces live here, not in the root export, so that only users of Redis load ioredis.
export { connectRedis, type RedisAddress } from '../eventstore/redis-address.js';
export {
  createRedisClient,
  type RedisClient,
  type RedisClientOptions,
  whenRedisReady,
} from '../eventstore/redis-client.js';
export { createRedisClusterClient } from '../eventstore/redis-cluster-client.js';
export { RedisEventStore, type RedisEventStoreOptions } from '../eventstore/redis-event-store.js';
export { StoreUnavailableError } from '../eventstore/store-unavailable-error.js';
export type { ClusterMessage } from './cluster-messages.js';
export {
  DEFAULT_LIVENESS_MS,
  DEFAULT_READY_TIMEOUT_MS,
  RedisCluster,
  type RedisClusterOptions,
} from './redis-cluster.js';
export {
  DEFAULT_KEY_PROPAGATION_MS,
  SharedRequestStateKeys,
  type SharedRequestStateKeysOptions,
} from './request-state-keys.js';
export { type SessionRecord, SessionStore, type SharedState, sessionHash } from './session-store.js';
export {
  DEFAULT_TASK_LEASE_MS,
  RedisTaskStore,
  type RedisTaskStoreOptions,
} from './tasks/redis-task-store.js';
