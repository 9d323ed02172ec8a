import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../test-support/manual-clock.js';
import { taskStoreContract } from '../test-support/task-store-contract.js';
import { TaskLimitError, TaskStoreFullError } from './errors.js';
import { MemoryTaskStore } from './memory-task-store.js';

const clock = new ManualClock();
// A real epoch, so that timestamps read as dates of this century.
clock.advance(Date.parse('2026-12-02T10:00:00Z'));

taskStoreContract('MemoryTaskStore', {
  make: async (options) => new MemoryTaskStore({ ...options, clock }),
  shared: false,
  elapse: async (ms) => clock.advance(ms),
  shortTtlMs: 1000,
});

test('the sweep frees expired tasks from memory, on its own timer', async () => {
  const local = new ManualClock();
  const store = new MemoryTaskStore({ clock: local, sweepIntervalMs: 1000 });
  for (let i = 0; i < 10; i++) await store.create({ taskId: `t${i}`, principal: 'p', ttlMs: 500 + i * 100 });
  await store.create({ taskId: 'kept', principal: 'p', ttlMs: 10_000 });
  assert.equal(store.size, 11);
  local.advance(1000);
  assert.equal(store.size, 5);
  local.advance(1000);
  assert.equal(store.size, 1);
  assert.equal(local.pending, 1, 'one sweep timer');
  await store.close();
  assert.equal(local.pending, 0, 'close stops it');
});

test('the store bound: past maxTasks over every principal, the oldest final task is freed, else TaskStoreFullError', async () => {
  const store = new MemoryTaskStore({ clock: new ManualClock(), maxTasks: 3, maxTasksPerPrincipal: 2 });
  const a = await store.create({ taskId: 'a', principal: 'p', ttlMs: 60_000 });
  await store.create({ taskId: 'b', principal: 'q', ttlMs: 60_000 });
  await store.create({ taskId: 'c', principal: 'r', ttlMs: 60_000 });
  await assert.rejects(store.create({ taskId: 'd', principal: 's', ttlMs: 60_000 }), (err: unknown) => {
    assert.ok(err instanceof TaskStoreFullError);
    assert.equal(err.httpStatus, 503);
    assert.match(err.message, /maximum of 3 tasks/);
    return true;
  });
  await store.update(a.taskId, { status: 'completed', result: {} });
  await store.create({ taskId: 'd', principal: 's', ttlMs: 60_000 });
  assert.equal(await store.get('a', 'p'), undefined, "p's final task made room for s");
  assert.equal(store.size, 3);
  await store.close();
});

test('anonymous callers are one principal: their bound is shared', async () => {
  const store = new MemoryTaskStore({ clock: new ManualClock(), maxTasksPerPrincipal: 2 });
  await store.create({ taskId: 'x', principal: undefined, ttlMs: 60_000 });
  await store.create({ taskId: 'y', principal: undefined, ttlMs: 60_000 });
  await assert.rejects(store.create({ taskId: 'z', principal: undefined, ttlMs: 60_000 }), TaskLimitError);
  await store.create({ taskId: 'z', principal: 'named', ttlMs: 60_000 });
  await store.close();
});

test('options are checked', () => {
  for (const bad of [0, -1, 1.5, Number.NaN]) {
    assert.throws(() => new MemoryTaskStore({ maxTasks: bad }), RangeError);
    assert.throws(() => new MemoryTaskStore({ maxTasksPerPrincipal: bad }), RangeError);
    assert.throws(() => new MemoryTaskStore({ maxTtlMs: bad }), RangeError);
  }
});

test('a TTL that is not a positive integer or null is refused', async () => {
  const store = new MemoryTaskStore({ clock: new ManualClock() });
  for (const ttlMs of [0, -5, 1.5, Number.NaN]) {
    await assert.rejects(store.create({ taskId: `x${ttlMs}`, principal: undefined, ttlMs }), RangeError);
  }
  await store.close();
});
