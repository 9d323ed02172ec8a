// A task store in Redis that cannot be reached: tasks/* are answered 503 naming the task store (the request may be
// tried again), never a 200 with an internal error, and the server works again once Redis is back.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RedisTaskStore } from '../../src/cluster/tasks/redis-task-store.js';
import { createRedisClient } from '../../src/eventstore/redis-client.js';
import { TASKS_EXTENSION } from '../../src/protocol/tasks.js';
import { jsonBody } from '../../src/test-support/mcp-http.js';
import { postModern } from '../../src/test-support/modern-http.js';
import { type RedisServer, startRedisServer } from '../../src/test-support/redis-server.js';
import { bearer, serveTaskServer, type TaskServer } from '../../src/test-support/task-server.js';
import { until } from '../../src/test-support/time-limit.js';

const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} } };

describe('tasks in Redis while Redis is down', { timeout: 90_000 }, () => {
  let redis: RedisServer;
  let client: ReturnType<typeof createRedisClient>;
  let fx: TaskServer<RedisTaskStore>;
  let nextId = 1;

  const call = async (method: string, params: Record<string, unknown>) => {
    const response = await postModern(fx.url, nextId++, method, params, {
      capabilities: WITH_TASKS,
      headers: bearer('ada-token'),
    });
    return { status: response.status, body: await jsonBody(response) };
  };

  before(async () => {
    redis = await startRedisServer();
    client = createRedisClient(redis.url);
    const store = new RedisTaskStore({ redis: client });
    await store.whenListening();
    fx = await serveTaskServer({ store });
  });
  after(async () => {
    fx.gate.open();
    await fx?.close();
    client?.disconnect();
    await redis?.stop();
  });

  test('tasks/get is a 503 naming the task store, and works again once Redis is back', async () => {
    const created = await call('tools/call', { name: 'gated', arguments: {} });
    assert.equal(created.body.result?.resultType, 'task', JSON.stringify(created.body));
    const { taskId } = created.body.result;
    assert.equal((await call('tasks/get', { taskId })).body.result.status, 'working');

    await redis.stop();
    const down = await call('tasks/get', { taskId });
    assert.equal(down.status, 503, JSON.stringify(down.body));
    assert.equal(down.body.error.code, -32603);
    assert.match(down.body.error.message, /task store is unavailable/);

    // Back, but empty (no persistence): the task is gone, as src/cluster/README.md says Redis losing data costs.
    await redis.restart();
    await until(() => client.status === 'ready', 30_000, 'the client to reconnect');
    const back = await call('tasks/get', { taskId });
    assert.equal(back.status, 200);
    assert.equal(back.body.error?.code, -32602, JSON.stringify(back.body));
  });
});
