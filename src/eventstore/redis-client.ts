import type { Cluster, Redis } from 'ioredis';
import { loadIoredis } from './load-ioredis.js';
import { StoreUnavailableError } from './store-unavailable-error.js';

/** A connection to one Redis server, or a client of a Redis Cluster: the stores and the cluster take either. */
export type RedisClient = Redis | Cluster;

/** Whether `client` is a client of a Redis Cluster (keys spread over shards) rather than of one server. */
export function isClusterClient(client: RedisClient): client is Cluster {
  return client.isCluster;
}

/** The delay before reconnection attempt `attempt` (from 1): 50 ms, doubling, at most `maxDelay`. */
export function reconnectDelay(attempt: number, maxDelay: number): number {
  return Math.min(50 * 2 ** Math.min(attempt - 1, 10), maxDelay);
}

/** Default `commandTimeoutMs`: how long a command, or a wait for the connection, may take before it fails. */
export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 2000;

/** Default `maxReconnectDelayMs`: the longest pause between two attempts to reach Redis again. */
export const DEFAULT_REDIS_MAX_RECONNECT_DELAY_MS = 1000;

export interface RedisClientOptions {
  /** A command with no answer after this long fails (Redis stalled or unreachable). Default 2000 ms. */
  commandTimeoutMs?: number;
  /** Reconnection backs off from 50 ms up to this pause, and never gives up. Default 1000 ms. */
  maxReconnectDelayMs?: number;
}

/**
 * A Redis client (ioredis) that fails fast and heals on its own, as a server needs it: while the connection is
 * down, commands are refused at once instead of queued (no unbounded queue, no request waiting for minutes),
 * a command cut off by a lost connection fails instead of being sent again (an append must not run twice), a
 * command with no answer fails after `commandTimeoutMs`, and the client reconnects forever with a short capped
 * backoff so service comes back as soon as Redis does. Connection errors reach the callers as failed commands;
 * the client's `error` event is consumed so that ioredis prints nothing. `url` is `redis://[user:pass@]host:port[/db]`
 * (or `rediss://` for TLS). Throws, naming the package to install, when ioredis is not installed.
 */
export function createRedisClient(url: string, options: RedisClientOptions = {}): Redis {
  const maxDelay = options.maxReconnectDelayMs ?? DEFAULT_REDIS_MAX_RECONNECT_DELAY_MS;
  const { Redis } = loadIoredis();
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: options.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: options.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => reconnectDelay(attempt, maxDelay),
  });
  client.on('error', () => {});
  return client;
}

/**
 * Resolves once `client` is connected and ready, within `timeoutMs`. Fails at once with StoreUnavailableError
 * when the client is between two attempts to reconnect (Redis is down: waiting would only delay the answer) or
 * has been closed, and when the connection attempt under way fails or outlasts `timeoutMs`. Starts a client
 * created with `lazyConnect`. A Redis Cluster's client is ready once it knows which node serves which slot.
 */
export function whenRedisReady(client: RedisClient, timeoutMs: number): Promise<void> {
  switch (client.status) {
    case 'ready':
      return Promise.resolve();
    case 'wait':
      client.connect().catch(() => {});
      break;
    case 'connecting':
    case 'connect':
      break;
    case 'reconnecting':
      return Promise.reject(new StoreUnavailableError('Redis is unreachable (the client is reconnecting)'));
    default:
      return Promise.reject(new StoreUnavailableError(`the Redis client is ${client.status}`));
  }
  return new Promise((resolve, reject) => {
    const settle = (error?: Error) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('close', onClose);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onReady = () => settle();
    const onClose = () =>
      settle(new StoreUnavailableError('Redis is unreachable (the connection attempt failed)'));
    const timer = setTimeout(
      () => settle(new StoreUnavailableError(`Redis did not accept a connection within ${timeoutMs} ms`)),
      timeoutMs,
    );
    client.on('ready', onReady);
    client.on('close', onClose);
  });
}

/** How long a command of `client` may wait for its answer (its `commandTimeout`); undefined when unbounded. */
export function commandTimeoutOf(client: RedisClient): number | undefined {
  return isClusterClient(client)
    ? client.options.redisOptions?.commandTimeout
    : client.options.commandTimeout;
}
