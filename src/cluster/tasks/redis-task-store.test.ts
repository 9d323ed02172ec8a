import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { createRedisClient } from '../../eventstore/redis-client.js';
import { StoreUnavailableError } from '../../eventstore/store-unavailable-error.js';
import { newTaskId } from '../../tasks/task-id.js';
import { RUNNER_STOPPED_MESSAGE } from '../../tasks/task-record.js';
import type { TaskRecord, TaskSignal, TaskStore } from '../../tasks/task-store.js';
import { startRedisServer } from '../../test-support/redis-server.js';
import { taskStoreContract } from '../../test-support/task-store-contract.js';
import { RedisTaskStore, type RedisTaskStoreOptions } from './redis-task-store.js';

const server = await startRedisServer();
const client = createRedisClient(server.url);
const opened: TaskStore[] = [];
after(async () => {
  await Promise.allSettled(opened.map((s) => s.close()));
  await client.quit();
  await server.stop();
});

/** A store on the shared server, listening. */
async function store(options: Partial<RedisTaskStoreOptions> = {}): Promise<RedisTaskStore> {
  const made = new RedisTaskStore({ redis: client, ...options });
  opened.push(made);
  await made.whenListening();
  return made;
}

taskStoreContract('RedisTaskStore', {
  make: async (options) => {
    const made = new RedisTaskStore({
      redis: client,
      maxTasksPerPrincipal: options?.maxTasksPerPrincipal,
      pageSize: options?.pageSize,
    });
    await made.whenListening();
    return made;
  },
  shared: true,
  elapse: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  shortTtlMs: 300,
});

/** Resolves once `check` answers true, polling every 50 ms; fails after 30 s. */
async function eventually(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('RedisTaskStore', () => {
  test('a runner killed (its connection gone, never closed) has its tasks failed once its lease lapses, heard everywhere, once', async () => {
    const keyPrefix = `test-${randomUUID()}`;
    const ownClient = createRedisClient(server.url);
    const runner = new RedisTaskStore({ redis: ownClient, keyPrefix, leaseMs: 1500 });
    await runner.whenListening();
    const [a, b, watcher] = [
      await store({ keyPrefix }),
      await store({ keyPrefix }),
      await store({ keyPrefix }),
    ];
    const task = await runner.create({ taskId: newTaskId(), principal: 'k', ttlMs: 60_000 });
    const changes: TaskRecord[] = [];
    watcher.onChange((t) => {
      if (t.taskId === task.taskId && t.status === 'failed') changes.push(t);
    });
    ownClient.disconnect(); // as a kill -9 would: no renewal, no goodbye
    // Nobody reads it: the sweep of the live processes finds the runner stopped, and every process hears it.
    await eventually(() => changes.length > 0, 'the failure is heard');
    assert.equal(changes[0].statusMessage, RUNNER_STOPPED_MESSAGE);
    // Two processes read it at once: both answer it failed.
    const seen = await Promise.all([a.get(task.taskId, 'k'), b.get(task.taskId, 'k')]);
    for (const t of seen) {
      assert.equal(t?.status, 'failed');
      assert.equal(t?.statusMessage, RUNNER_STOPPED_MESSAGE);
      assert.equal(t?.error?.message, RUNNER_STOPPED_MESSAGE);
    }
    assert.equal((await a.list('k')).tasks[0]?.status, 'failed');
    await new Promise((resolve) => setTimeout(resolve, 2 * 1500));
    assert.equal(changes.length, 1, 'published once, whoever found it');
    assert.equal(
      await client.sismember(`${keyPrefix}:runners`, runner.runnerId),
      0,
      'the stopped runner is forgotten',
    );
    await runner.close();
  });

  test('a signal whose message was lost (the runner was not listening) still reaches it', async () => {
    const keyPrefix = `test-${randomUUID()}`;
    const runner = await store({ keyPrefix, leaseMs: 1500 });
    const client2 = await store({ keyPrefix });
    const task = await runner.create({ taskId: newTaskId(), principal: 'm', ttlMs: 60_000 });
    const signals: TaskSignal[] = [];
    runner.watch(task.taskId, (s) => signals.push(s));
    // Every pub/sub connection dropped: the poke below may be published to no one.
    await client.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    assert.equal(await client2.requestCancel(task.taskId, 'm'), true);
    await eventually(() => signals.length > 0, 'the cancel reaches the runner');
    assert.deepEqual(signals, [{ kind: 'cancel' }]);
  });

  test('keys and messages never show a task id or a principal; a task key lives its TTL', async () => {
    const keyPrefix = `test-${randomUUID()}`;
    const s = await store({ keyPrefix });
    const principal = `alice-${randomUUID()}`;
    const taskId = newTaskId();
    const messages: string[] = [];
    const listener = new Redis(server.url);
    await listener.subscribe(`${keyPrefix}:bus`);
    listener.on('message', (_c, m: string) => messages.push(m));
    await s.create({ taskId, principal, ttlMs: 20_000 });
    await s.update(taskId, { status: 'input_required', inputRequests: { k: { method: 'roots/list' } } });
    await s.respond(taskId, principal, { k: { roots: [] } });
    const keys = await client.keys(`${keyPrefix}:*`);
    assert.ok(keys.length >= 3, keys.join());
    for (const key of keys) {
      assert.ok(!key.includes(taskId) && !key.includes(principal), key);
    }
    const taskKey = keys.find((k) => /^[^{]*\{[\w-]{22}\}$/.test(k))!;
    const ttl = await client.pttl(taskKey);
    assert.ok(ttl > 0 && ttl <= 20_000, String(ttl));
    await eventually(() => messages.length >= 3, 'the messages are heard');
    assert.ok(messages.some((m) => m.startsWith('s') && !m.includes(taskId)));
    listener.disconnect();
  });

  test('with Redis down every call fails with StoreUnavailableError, and works again once it is back', async () => {
    const own = await startRedisServer();
    const s = new RedisTaskStore({ redis: own.url });
    try {
      await s.whenListening();
      const task = await s.create({ taskId: newTaskId(), principal: undefined, ttlMs: 60_000 });
      await own.stop();
      await assert.rejects(s.get(task.taskId, undefined), StoreUnavailableError);
      await assert.rejects(
        s.create({ taskId: newTaskId(), principal: undefined, ttlMs: 1 }),
        StoreUnavailableError,
      );
      await assert.rejects(s.list(undefined), StoreUnavailableError);
      await own.restart(); // empty: nothing is persisted
      await eventually(
        () =>
          s.get(task.taskId, undefined).then(
            () => true,
            () => false,
          ),
        'the store answers again',
      );
      assert.equal(await s.get(task.taskId, undefined), undefined);
    } finally {
      await s.close();
      await own.stop();
    }
  });
});
