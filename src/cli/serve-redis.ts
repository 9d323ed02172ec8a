// What `mcpwire serve --redis` joins: the cluster of every process serving the endpoint, the task store they share,
// and the requestState keys they seal with.
import type { RedisCluster } from '../cluster/redis-cluster.js';
import type { RedisAddress } from '../eventstore/redis-address.js';
import type { RequestStateKey } from '../server/modern/request-state.js';
import type { TaskStore } from '../tasks/task-store.js';
import { REQUEST_STATE_SECRET_ENV } from './request-state-key.js';

/** How often `--redis` without MCPWIRE_REQUEST_STATE_SECRET draws a new requestState key for the cluster. */
const KEY_ROTATION_MS = 24 * 60 * 60 * 1000;

/**
 * The cluster of every process serving sessions through the Redis at `address`. With requestState keys of its own
 * (`hasKeys`), serving starts even when Redis cannot be reached yet: requests get a 503 saying so until it can,
 * and the connection is retried on its own.
 */
export async function joinCluster(
  address: RedisAddress,
  hasKeys: boolean,
  log: (line: string) => void,
): Promise<RedisCluster> {
  // Loaded only here, so that serving without Redis never loads the Redis client.
  const { RedisCluster } = await import('../cluster/redis-cluster.js');
  // Without keys of its own, the cluster's, rotated daily.
  const cluster = new RedisCluster({
    redis: address,
    requestStateKeys: hasKeys ? undefined : { rotateEveryMs: KEY_ROTATION_MS },
  });
  try {
    await cluster.whenReady();
  } catch (err) {
    // Without keys of its own, `clusterKeys` waits for Redis instead, and says so.
    if (hasKeys)
      log(`warning: ${(err as Error).message}; serving anyway: requests get 503 until Redis answers`);
  }
  return cluster;
}

/** How long a process's task lease lasts (`MCPWIRE_TASK_LEASE_MS`): its tasks are failed this long after it died. */
export const TASK_LEASE_ENV = 'MCPWIRE_TASK_LEASE_MS';

/**
 * The tasks of every process serving through the Redis at `address` (a client of their own). A task whose process
 * died is answered failed once its lease lapses: `MCPWIRE_TASK_LEASE_MS`, default 10 s.
 */
export async function sharedTasks(address: RedisAddress, log: (line: string) => void): Promise<TaskStore> {
  const raw = process.env[TASK_LEASE_ENV];
  const leaseMs = raw === undefined || raw === '' ? undefined : Number(raw);
  if (leaseMs !== undefined && !(Number.isSafeInteger(leaseMs) && leaseMs > 0)) {
    throw new Error(`${TASK_LEASE_ENV} must be a positive whole number of milliseconds, not "${raw}"`);
  }
  const { RedisTaskStore } = await import('../cluster/tasks/redis-task-store.js');
  return new RedisTaskStore({
    redis: address,
    leaseMs,
    onError: (err) => log(`tasks: ${(err as Error).message}`),
  });
}

/**
 * The cluster's requestState keys, from Redis: a key of this process alone would refuse every retry that lands
 * on another process, so serving waits for Redis here (retrying each second) rather than start with one.
 */
export async function clusterKeys(
  cluster: RedisCluster,
  log: (line: string) => void,
): Promise<readonly RequestStateKey[]> {
  for (let waited = false; ; waited = true) {
    try {
      if (waited) await cluster.whenReady();
      return await cluster.requestStateKeys!.refresh();
    } catch (err) {
      log(
        `waiting for Redis, which keeps the requestState key of the cluster (or set ${REQUEST_STATE_SECRET_ENV}): ` +
          (err as Error).message,
      );
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}
