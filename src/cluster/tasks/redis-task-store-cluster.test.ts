// RedisTaskStore on a Redis Cluster of three masters and their replicas: the same contract as on one server, with
// each task's keys in one slot and each principal's index in one slot, changes published from the task's shard.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { createRedisClusterClient } from '../../eventstore/redis-cluster-client.js';
import { newTaskId } from '../../tasks/task-id.js';
import { startRedisCluster } from '../../test-support/redis-cluster-server.js';
import { taskStoreContract } from '../../test-support/task-store-contract.js';
import { keySlot } from '../key-slot.js';
import { RedisTaskStore } from './redis-task-store.js';

const cluster = await startRedisCluster();
const client = createRedisClusterClient(cluster.address.cluster);
after(async () => {
  client.disconnect();
  await cluster.stop();
});

taskStoreContract('RedisTaskStore on a Redis Cluster', {
  make: async (options) => {
    const store = new RedisTaskStore({
      redis: client,
      maxTasksPerPrincipal: options?.maxTasksPerPrincipal,
      pageSize: options?.pageSize,
    });
    await store.whenListening();
    return store;
  },
  shared: true,
  elapse: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  shortTtlMs: 300,
});

describe('RedisTaskStore on a Redis Cluster', () => {
  test('tasks spread over the shards; a principal’s index keys share one slot', async () => {
    const keyPrefix = `test-${randomUUID()}`;
    const store = new RedisTaskStore({ redis: client, keyPrefix });
    try {
      for (let i = 0; i < 12; i++) {
        await store.create({ taskId: newTaskId(), principal: 'spread', ttlMs: 60_000 });
      }
      const masters = new Set<number>();
      const index: string[] = [];
      for (const node of client.nodes('master')) {
        const held = await node.keys(`${keyPrefix}:*`);
        if (held.some((k) => !k.includes(':index:') && !k.includes(':runner:')))
          masters.add(node.options.port!);
        index.push(...held.filter((k) => k.includes(':index:')));
      }
      assert.ok(masters.size >= 2, `tasks on ${masters.size} master(s)`);
      assert.ok(index.length >= 2);
      assert.equal(new Set(index.map(keySlot)).size, 1);
      assert.equal((await store.list('spread')).tasks.length, 12);
    } finally {
      await store.close();
    }
  });
});
