import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, test } from 'node:test';
import { McpError } from '../jsonrpc/errors.js';
import { TaskLimitError } from '../tasks/errors.js';
import { newTaskId } from '../tasks/task-id.js';
import { RUNNER_STOPPED_MESSAGE } from '../tasks/task-record.js';
import type { TaskRecord, TaskSignal, TaskStore } from '../tasks/task-store.js';
import { type ContractKit, settle, taskStoreProperties, waitFor } from './task-store-properties.js';

/** How the contract suite makes stores and lets time pass for them. */
export interface TaskStoreFixture {
  /** A fresh store. Stores of one fixture share what they hold when `shared` (as processes sharing Redis). */
  make(options?: { maxTasksPerPrincipal?: number; pageSize?: number }): Promise<TaskStore>;
  /** Whether two stores of the fixture see the same tasks: then the cross-store clauses run. */
  readonly shared: boolean;
  /** Lets `ms` pass as the stores' clocks (or Redis's) see it. */
  elapse(ms: number): Promise<void>;
  /** A TTL short enough for `elapse` to pass it cheaply. */
  readonly shortTtlMs: number;
}

/** A promise of the next `n` values `subscribe` hands its listener, failing after 10 s. */
function next<T>(subscribe: (listener: (value: T) => void) => () => void, n = 1): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const values: T[] = [];
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`got ${values.length} of ${n} values within 10 s: ${JSON.stringify(values)}`));
    }, 10_000);
    const stop = subscribe((value) => {
      values.push(value);
      if (values.length < n) return;
      clearTimeout(timer);
      stop();
      resolve(values);
    });
  });
}

/**
 * Registers the node:test tests of every clause of the TaskStore contract (src/tasks/task-store.ts). Ids and
 * principals are random, so stores backed by a shared server can run it without cleaning up between tests.
 */
export function taskStoreContract(name: string, fixture: TaskStoreFixture): void {
  const opened: TaskStore[] = [];
  const make = async (options?: { maxTasksPerPrincipal?: number; pageSize?: number }) => {
    const store = await fixture.make(options);
    opened.push(store);
    return store;
  };
  const kit: ContractKit = {
    make,
    other: async (store, options) => (fixture.shared ? make(options) : store),
    principal: () => `user-${randomUUID()}`,
    start: (store, who, ttlMs = 60_000) =>
      store.create({ taskId: newTaskId(), principal: who, ttlMs, pollIntervalMs: 500 }),
  };
  const { other, principal, start } = kit;
  const ask = {
    confirm: { method: 'elicitation/create' as const, params: { message: 'go?', requestedSchema: {} } },
    roots: { method: 'roots/list' as const },
  };

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });

  describe(`TaskStore contract: ${name}`, () => {
    test('create stores a working task that get answers, with its timestamps, TTL and poll interval', async () => {
      const store = await make();
      const who = principal();
      const created = await start(store, who, 30_000);
      assert.equal(created.status, 'working');
      assert.equal(created.principal, who);
      assert.equal(created.ttlMs, 30_000);
      assert.equal(created.pollIntervalMs, 500);
      assert.equal(created.createdAt, created.lastUpdatedAt);
      assert.ok(!Number.isNaN(Date.parse(created.createdAt)));
      assert.deepEqual(await store.get(created.taskId, who), created);
    });

    test('create refuses an id already taken, and leaves the task as it was', async () => {
      const store = await make();
      const created = await start(store, 'a');
      await assert.rejects(store.create({ taskId: created.taskId, principal: 'b', ttlMs: 1000 }));
      assert.deepEqual(await store.get(created.taskId, 'a'), created);
      assert.equal(await store.get(created.taskId, 'b'), undefined);
    });

    test('durability: a task created through one store is found through another sharing it', async () => {
      const store = await make();
      const elsewhere = await other(store);
      const created = await start(store, undefined);
      assert.deepEqual(await elsewhere.get(created.taskId, undefined), created);
      assert.deepEqual(
        (await elsewhere.list(undefined)).tasks.find((t) => t.taskId === created.taskId),
        created,
      );
    });

    test('ownership: another principal, an unknown id and an expired task all look the same', async () => {
      const store = await make();
      const elsewhere = await other(store);
      const who = principal();
      const task = await start(store, who);
      const expiring = await start(store, who, fixture.shortTtlMs);
      await fixture.elapse(fixture.shortTtlMs + 50);
      const cases: Array<[string, string | undefined]> = [
        [task.taskId, principal()], // another principal
        [task.taskId, undefined], // anonymous is a principal of its own
        [task.taskId, ''],
        [newTaskId(), who], // unknown
        [expiring.taskId, who], // expired
      ];
      for (const [id, as] of cases) {
        for (const s of [store, elsewhere]) {
          assert.equal(await s.get(id, as), undefined);
          assert.equal(await s.respond(id, as, { confirm: { action: 'accept' } }), false);
          assert.equal(await s.requestCancel(id, as), false);
        }
      }
      assert.deepEqual(
        (await elsewhere.list(principal())).tasks.filter((t) => t.taskId === task.taskId),
        [],
      );
      assert.equal((await store.get(task.taskId, who))?.status, 'working');
    });

    test('updates: input_required shows its requests, a final status clears them and carries the result', async () => {
      const store = await make();
      const elsewhere = await other(store);
      const task = await start(store, 'u');
      assert.equal(
        await store.update(task.taskId, {
          status: 'input_required',
          statusMessage: 'needs you',
          inputRequests: ask,
        }),
        true,
      );
      const waiting = await elsewhere.get(task.taskId, 'u');
      assert.equal(waiting?.status, 'input_required');
      assert.deepEqual(waiting?.inputRequests, ask);
      assert.equal(waiting?.statusMessage, 'needs you');
      const result = { content: [], structuredContent: { n: 1, empty: {}, list: [] }, isError: false };
      assert.equal(await store.update(task.taskId, { status: 'completed', result }), true);
      const done = await elsewhere.get(task.taskId, 'u');
      assert.equal(done?.status, 'completed');
      assert.deepEqual(done?.result, result);
      assert.equal(done?.inputRequests, undefined);
      assert.equal(done?.statusMessage, undefined);
      assert.equal(done?.createdAt, task.createdAt);
    });

    for (const status of ['completed', 'failed', 'cancelled'] as const) {
      test(`finality: once ${status}, update changes nothing and answers false`, async () => {
        const store = await make();
        const task = await start(store, 'f');
        const error = status === 'failed' ? { code: -32000, message: 'broke' } : undefined;
        assert.equal(await store.update(task.taskId, { status, error }), true);
        const final = await store.get(task.taskId, 'f');
        assert.equal(final?.status, status);
        if (error) assert.deepEqual(final?.error, error);
        for (const change of [{ status: 'working' as const }, { status: 'completed' as const, result: {} }]) {
          assert.equal(await store.update(task.taskId, change), false);
        }
        assert.deepEqual(await store.get(task.taskId, 'f'), final);
      });
    }

    test('update of an unknown or expired task answers false', async () => {
      const store = await make();
      assert.equal(await store.update(newTaskId(), { status: 'completed', result: {} }), false);
      const task = await start(store, 'x', fixture.shortTtlMs);
      await fixture.elapse(fixture.shortTtlMs + 50);
      assert.equal(await store.update(task.taskId, { status: 'completed', result: {} }), false);
    });

    test('signals: a cancel through any store reaches the runner’s watch, once', async () => {
      const store = await make();
      const elsewhere = await other(store);
      const task = await start(store, 'c');
      const signals: TaskSignal[] = [];
      const stop = store.watch(task.taskId, (s) => signals.push(s));
      const heard = next<TaskSignal>((l) => store.watch(task.taskId, l));
      assert.equal(await elsewhere.requestCancel(task.taskId, 'c'), true);
      assert.deepEqual(await heard, [{ kind: 'cancel' }]);
      assert.equal(await elsewhere.requestCancel(task.taskId, 'c'), true);
      await settle();
      stop();
      assert.deepEqual(signals, [{ kind: 'cancel' }]);
      assert.equal((await store.get(task.taskId, 'c'))?.status, 'working', 'cancel is cooperative');
    });

    test('signals: input responses reach the watch; unknown and answered keys are not delivered', async () => {
      const store = await make();
      const elsewhere = await other(store);
      const task = await start(store, 'i');
      await store.update(task.taskId, { status: 'input_required', inputRequests: ask });
      const inputs: Record<string, unknown>[] = [];
      const stop = store.watch(task.taskId, (s) => {
        if (s.kind === 'input') inputs.push(s.inputResponses);
      });
      const answer = { action: 'accept', content: { ok: true } };
      assert.equal(await elsewhere.respond(task.taskId, 'i', { confirm: answer, nope: 1 }), true);
      await waitFor(() => inputs.length === 1);
      assert.equal(await elsewhere.respond(task.taskId, 'i', { confirm: { action: 'decline' } }), true);
      assert.equal(await store.respond(task.taskId, 'i', { roots: { roots: [] } }), true);
      await waitFor(() => inputs.length === 2);
      await settle();
      stop();
      assert.deepEqual(inputs, [{ confirm: answer }, { roots: { roots: [] } }]);
    });

    test('signals sent before the runner watches reach it when it does', async () => {
      const store = await make();
      const elsewhere = await other(store);
      const task = await start(store, 'p');
      await store.update(task.taskId, { status: 'input_required', inputRequests: ask });
      await elsewhere.respond(task.taskId, 'p', { confirm: { action: 'cancel' } });
      await elsewhere.requestCancel(task.taskId, 'p');
      const got = await next<TaskSignal>((l) => store.watch(task.taskId, l), 2);
      assert.deepEqual(
        got.sort((a, b) => a.kind.localeCompare(b.kind)),
        [{ kind: 'cancel' }, { kind: 'input', inputResponses: { confirm: { action: 'cancel' } } }],
      );
    });

    test('respond to a task that asks for nothing, or is final, is found but delivers nothing', async () => {
      const store = await make();
      const task = await start(store, 'n');
      const signals: TaskSignal[] = [];
      const stop = store.watch(task.taskId, (s) => signals.push(s));
      assert.equal(await store.respond(task.taskId, 'n', { confirm: {} }), true);
      await store.update(task.taskId, { status: 'cancelled' });
      assert.equal(await store.respond(task.taskId, 'n', { confirm: {} }), true);
      assert.equal(await store.requestCancel(task.taskId, 'n'), true);
      await settle();
      stop();
      assert.deepEqual(signals, []);
    });

    test('changes: create and every update reach the onChange listeners of every store', async () => {
      const store = await make();
      const elsewhere = await other(store);
      const here = next<TaskRecord>((l) => store.onChange(l), 3);
      const there = next<TaskRecord>((l) => elsewhere.onChange(l), 3);
      await settle(); // a store backed by pub/sub listens once its subscription is made
      const task = await start(store, 'ch');
      await store.update(task.taskId, { status: 'working', statusMessage: 'half way' });
      await store.update(task.taskId, { status: 'completed', result: { content: [] } });
      for (const seen of [await here, await there]) {
        const mine = seen.filter((t) => t.taskId === task.taskId);
        assert.deepEqual(
          mine.map((t) => [t.status, t.statusMessage]),
          [
            ['working', undefined],
            ['working', 'half way'],
            ['completed', undefined],
          ],
        );
        assert.equal(mine[0].principal, 'ch');
        assert.deepEqual(mine[2].result, { content: [] });
      }
    });

    test('liveness: once the runner’s store closes, its unfinished tasks are failed, saying why, once', async () => {
      const runner = await make();
      const elsewhere = await other(runner);
      const running = await start(runner, 'l');
      const done = await start(runner, 'l');
      await runner.update(done.taskId, { status: 'completed', result: { content: [] } });
      const changes: TaskRecord[] = [];
      const stop = elsewhere.onChange((t) => {
        if (t.taskId === running.taskId) changes.push(t);
      });
      await settle();
      await runner.close();
      const failed = await elsewhere.get(running.taskId, 'l');
      assert.equal(failed?.status, 'failed');
      assert.equal(failed?.statusMessage, RUNNER_STOPPED_MESSAGE);
      assert.equal(failed?.error?.message, RUNNER_STOPPED_MESSAGE);
      assert.equal((await elsewhere.get(done.taskId, 'l'))?.status, 'completed');
      assert.equal((await elsewhere.get(running.taskId, 'l'))?.status, 'failed');
      await elsewhere.list('l');
      await settle();
      stop();
      // Failed once; the task's creation may be heard too, when the bus delivers it late (a busy Redis Cluster).
      assert.deepEqual(
        changes.map((t) => t.status).filter((status) => status !== 'working'),
        ['failed'],
      );
    });

    test('expiry: a task is gone its TTL after creation, whatever it did meanwhile', async () => {
      const store = await make();
      const task = await start(store, 'e', fixture.shortTtlMs);
      await store.update(task.taskId, { status: 'completed', result: {} });
      assert.equal((await store.get(task.taskId, 'e'))?.status, 'completed');
      await fixture.elapse(fixture.shortTtlMs + 50);
      assert.equal(await store.get(task.taskId, 'e'), undefined);
      assert.deepEqual(
        (await store.list('e')).tasks.filter((t) => t.taskId === task.taskId),
        [],
      );
    });

    test('a task without a TTL is kept for the store’s longest one, which the record states', async () => {
      const store = await make();
      const task = await start(store, 'n', null);
      assert.equal(typeof task.ttlMs, 'number');
      assert.ok((task.ttlMs as number) > 0);
      const long = await start(store, 'n', Number.MAX_SAFE_INTEGER);
      assert.equal(long.ttlMs, task.ttlMs);
    });

    test('bound per principal: its oldest final task is freed for a new one; with none final, TaskLimitError', async () => {
      const store = await make({ maxTasksPerPrincipal: 3 });
      assert.equal(store.maxTasksPerPrincipal, 3);
      const [who, neighbour] = [principal(), principal()];
      const theirs = await start(store, neighbour);
      await store.update(theirs.taskId, { status: 'completed', result: {} });
      const [a, b, c] = [await start(store, who), await start(store, who), await start(store, who)];
      await store.update(c.taskId, { status: 'completed', result: {} });
      await store.update(b.taskId, { status: 'failed', error: { code: 1, message: 'x' } });
      const d = await start(store, who);
      assert.equal(await store.get(b.taskId, who), undefined, 'the oldest final one is freed');
      assert.equal((await store.get(a.taskId, who))?.status, 'working');
      assert.equal((await store.get(c.taskId, who))?.status, 'completed');
      await start(store, who); // frees c
      assert.equal(await store.get(c.taskId, who), undefined);
      await assert.rejects(start(store, who), (err: unknown) => {
        assert.ok(err instanceof TaskLimitError, String(err));
        assert.equal(err.maxTasksPerPrincipal, 3);
        assert.equal(err.httpStatus, 429);
        assert.match(err.message, /maximum of 3 tasks .* none of them has finished.*tasks\/cancel/);
        return true;
      });
      assert.equal((await store.get(d.taskId, who))?.status, 'working');
      assert.equal((await store.list(who)).tasks.length, 3, 'the refused task was not stored');
      assert.equal(
        (await store.get(theirs.taskId, neighbour))?.status,
        'completed',
        "another principal's final task is never freed for this one",
      );
      for (let i = 0; i < 2; i++) await start(store, neighbour); // its own bound, untouched by the first's
      assert.equal((await store.list(neighbour)).tasks.length, 3);
      await store.update(a.taskId, { status: 'cancelled' });
      assert.equal(
        (await start(store, who)).status,
        'working',
        'once one of its tasks ends, it may start another',
      );
    });

    test('list: newest first, page by page, each task once, only the principal’s', async () => {
      const store = await make({ pageSize: 3 });
      const elsewhere = await other(store, { pageSize: 3 });
      const who = principal();
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) {
        ids.push((await start(store, who)).taskId);
        await start(store, principal());
        if (i % 3 === 0) await fixture.elapse(2); // some in the same millisecond, some not
      }
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await (pages % 2 === 0 ? store : elsewhere).list(who, cursor);
        assert.ok(page.tasks.length <= 3);
        seen.push(...page.tasks.map((t) => t.taskId));
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== undefined && pages < 10);
      assert.deepEqual(seen, ids.reverse());
      assert.deepEqual(await store.list(principal()), { tasks: [] });
    });

    test('list: a cursor the store did not issue is -32602', async () => {
      const store = await make();
      for (const cursor of ['', 'x', '{"a":1}', 'm99999999999999999999', '../../', '\u0000']) {
        await assert.rejects(store.list('c', cursor), (err: unknown) => {
          assert.ok(err instanceof McpError);
          assert.equal(err.code, -32602);
          return true;
        });
      }
    });

    taskStoreProperties(kit);
  });
}
