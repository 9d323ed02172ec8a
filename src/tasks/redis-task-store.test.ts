import { after } from 'node:test';
import { createRedisClient } from '../eventstore/redis-client.js';
import { startRedisServer } from '../test-support/redis-server.js';
import { taskStoreContract } from '../test-support/task-store-contract.js';
import { RedisTaskStore } from './redis-task-store.js';

const server = await startRedisServer();
const client = createRedisClient(server.url);
after(async () => {
  await client.quit();
  await server.stop();
});

taskStoreContract('RedisTaskStore', {
  make: async (options) => {
    const store = new RedisTaskStore({
      redis: client,
      maxTasksPerPrincipal: options?.maxTasks,
      pageSize: options?.pageSize,
    });
    await store.whenListening();
    return store;
  },
  shared: true,
  elapse: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  shortTtlMs: 300,
});
