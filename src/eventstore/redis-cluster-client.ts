import type { Cluster } from 'ioredis';
import { loadIoredis } from './load-ioredis.js';
import {
  DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
  DEFAULT_REDIS_MAX_RECONNECT_DELAY_MS,
  type RedisClientOptions,
  reconnectDelay,
} from './redis-client.js';
import { parseRedisNode } from './redis-node.js';

/** How often a Redis Cluster's client asks which node serves which slot, to notice a failover it was not told of. */
export const SLOTS_REFRESH_MS = 2000;

/** How soon it asks again after a connection to a node ended. */
const SLOTS_RETRY_MS = 100;

const ignore = (): void => {};

/**
 * A client of a Redis Cluster (ioredis's `Cluster`), which fails fast and heals on its own as `createRedisClient`
 * does: while a node is down, commands for its slots fail at once (no queue); a command cut off by a lost
 * connection fails instead of being sent again (it may have run: an append must not run twice), while MOVED,
 * ASK, TRYAGAIN and CLUSTERDOWN, which a node answers without running the command, are followed; a command with
 * no answer fails after `commandTimeoutMs`; every node is connected to as soon as the slots name it; the client asks
 * for the slots every 2 s, and soon after a connection to a node ended, and reconnects forever.
 *
 * `nodes` are a few of the cluster's nodes to start from (it finds the others), each `host:port` or a URL,
 * `redis://[user:password@]host:port` (`rediss://` for TLS); the credentials and TLS of the first are used
 * for every node.
 */
export function createRedisClusterClient(
  nodes: readonly string[],
  options: RedisClientOptions = {},
): Cluster {
  if (nodes.length === 0)
    throw new RangeError('A Redis Cluster needs the address of at least one of its nodes');
  const seeds = nodes.map(parseRedisNode);
  const { username, password, tls } = seeds[0];
  const timeout = options.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS;
  const maxDelay = options.maxReconnectDelayMs ?? DEFAULT_REDIS_MAX_RECONNECT_DELAY_MS;
  const { Cluster } = loadIoredis();
  const client = new Cluster(
    seeds.map(({ host, port }) => ({ host, port })),
    {
      enableOfflineQueue: false,
      retryDelayOnFailover: 0,
      slotsRefreshInterval: SLOTS_REFRESH_MS,
      clusterRetryStrategy: (attempt) => reconnectDelay(attempt, maxDelay),
      redisOptions: {
        username,
        password,
        tls: tls ? {} : undefined,
        maxRetriesPerRequest: 0,
        autoResendUnfulfilledCommands: false,
        commandTimeout: timeout,
        connectTimeout: timeout,
      },
    },
  );
  client.on('error', ignore);
  client.on('node error', ignore);
  // ioredis connects to a node when a command first needs it, and with no queue a command for a node still
  // connecting fails: once the client is ready, every node the slots name is connected to at once, replicas too
  // (one may take over). Before, a node connecting would fail the client's own check that the cluster is up.
  const connect = () => {
    if (client.status === 'ready') startConnecting(client);
  };
  client.on('ready', connect);
  client.on('refresh', connect);
  // A connection to a node ended (it died, or left): the slots are asked for soon rather than at the next
  // refresh, so that commands go to the replica that takes over as soon as the cluster says so; at most every
  // 100 ms, as a dead node still named by the slots ends each new connection at once.
  let refreshing: NodeJS.Timeout | undefined;
  client.on('-node', () => {
    if (refreshing !== undefined) return;
    refreshing = setTimeout(() => {
      refreshing = undefined;
      client.refreshSlotsCache();
    }, SLOTS_RETRY_MS);
  });
  return client;
}

/**
 * Connects to every node `client` knows of that is not connected yet; resolves once each is connected, or has failed
 * to connect, or `timeoutMs` passed.
 */
export async function connectNodes(client: Cluster, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  startConnecting(client);
  const connected = client.nodes('all').map((node) => {
    if (!CONNECTING.has(node.status)) return undefined;
    return new Promise<void>((resolve) => {
      node.once('ready', resolve);
      node.once('close', resolve);
    });
  });
  await Promise.race([Promise.all(connected), timeout]);
  clearTimeout(timer);
}

/** Starts connecting to the nodes of `client` not connected to yet (ioredis makes them `lazyConnect`). */
function startConnecting(client: Cluster): void {
  for (const node of client.nodes('all')) if (node.status === 'wait') node.connect().catch(ignore);
}

/** The statuses of a connection on its way to ready (or to failing). */
const CONNECTING = new Set(['wait', 'connecting', 'connect']);
