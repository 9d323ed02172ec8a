import type { RedisAddress } from '../eventstore/redis-address.js';
import type { RedisClient } from '../eventstore/redis-client.js';
import type { RedisEventStoreOptions } from '../eventstore/redis-event-store.js';
import type { SharedRequestStateKeysOptions } from './request-state-keys.js';

/** Default `timeoutMs` of `whenReady`. */
export const DEFAULT_READY_TIMEOUT_MS = 10_000;

/** Default `livenessMs`. */
export const DEFAULT_LIVENESS_MS = 2000;

export interface RedisClusterOptions {
  /**
   * Where Redis is: a URL (`redis://host:port`), or a Redis Cluster, `{ cluster: ['host:port', …] }` (a few of its
   * nodes). Or a client to share, made by `createRedisClient` or `createRedisClusterClient` (fail fast, never
   * re-send a command). The cluster and its event store use it for commands, and a connection of the same
   * settings for messages. `close()` ends the connections the cluster opened, never a client it was given.
   */
  redis: RedisClient | RedisAddress;
  /**
   * Start of every key and channel; processes that serve the same sessions use the same. Default 'mcpwire'. Keep
   * it free of `{…}`: on a Redis Cluster that would put every key in one slot.
   */
  keyPrefix?: string;
  /** Bounds of the event store the cluster makes (a RedisEventStore under `<keyPrefix>:events`). */
  eventStore?: Omit<RedisEventStoreOptions, 'redis' | 'keyPrefix'>;
  /**
   * Each process keeps a key alive in Redis, refreshed three times per this period; one whose key has been gone
   * for a whole period more is taken for dead (killed, or cut off from Redis), and a stream it was writing ends
   * for the responses that follow it in other processes, instead of waiting forever. Default 2000 ms.
   */
  livenessMs?: number;
  /**
   * Seal the Server's `requestState` with keys every process shares through Redis, rotated (see
   * request-state-keys.ts); the Server's own `requestStateKeys` are replaced once they are read.
   */
  requestStateKeys?: SharedRequestStateKeysOptions;
}

/**
 * How long a session idle everywhere lives in Redis: the handler's idle timeout, or when its sessions never time
 * out, as long as their events (that still bounds what abandoned ones leave). Throws when the event store would
 * forget a stream before its idle session ends.
 */
export function sessionTtlMs(idleTimeoutMs: number, eventsTtlSeconds: number): number {
  const eventsTtlMs = eventsTtlSeconds * 1000;
  const ttlMs = idleTimeoutMs > 0 ? idleTimeoutMs : eventsTtlMs;
  if (ttlMs > eventsTtlMs) {
    throw new Error(
      `The event store keeps a stream ${eventsTtlSeconds} s after its last event, less than an idle session lives ` +
        `(${ttlMs} ms): raise the cluster's eventStore.ttlSeconds, or lower sessionIdleTimeoutMs`,
    );
  }
  return ttlMs;
}
