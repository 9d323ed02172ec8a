import type { RedisAddress } from '../eventstore/redis-address.js';
import { type LocalRedisCluster, startRedisCluster } from './redis-cluster-server.js';
import { type RedisServer, startRedisServer } from './redis-server.js';

/** The Redis a test file runs against: one server, or a Redis Cluster of three masters and their replicas. */
export interface RedisBackend {
  readonly kind: 'server' | 'cluster';
  /** What a RedisCluster (`redis`) or `startProcessCluster` (`redis`) takes. */
  readonly address: RedisAddress;
  /** `redis://…` of the node that serves `key`: the server, or the master of the key's slot now. */
  urlOf(key: string): Promise<string>;
  /** The server, when `kind` is 'server'. */
  readonly server?: RedisServer;
  /** The cluster, when `kind` is 'cluster'. */
  readonly cluster?: LocalRedisCluster;
  stop(): Promise<void>;
}

let kind: RedisBackend['kind'] = 'server';

/**
 * Has `startRedisBackend` start a Redis Cluster from now on. A test file that runs the tests of another against a
 * Redis Cluster calls this, then imports that file (each test file runs in a process of its own).
 */
export function useRedisCluster(): void {
  kind = 'cluster';
}

/** What `startRedisBackend` starts: 'cluster' once `useRedisCluster` was called. */
export function redisKind(): RedisBackend['kind'] {
  return kind;
}

/** Starts the Redis of this test file: one server, unless `useRedisCluster` was called. */
export async function startRedisBackend(): Promise<RedisBackend> {
  if (kind === 'server') {
    const server = await startRedisServer();
    return { kind, address: server.url, urlOf: async () => server.url, server, stop: server.stop };
  }
  const cluster = await startRedisCluster();
  return {
    kind,
    address: cluster.address,
    urlOf: async (key) => `redis://127.0.0.1:${await cluster.masterOf(key)}`,
    cluster,
    stop: cluster.stop,
  };
}
