import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpError } from '../jsonrpc/errors.js';
import { newTaskId } from '../tasks/task-id.js';
import type { TaskRecord, TaskStore } from '../tasks/task-store.js';
import { fc, fuzzRuns } from './fuzz.js';

/** What the TaskStore contract's tests share: stores made and closed for them, principals, tasks. */
export interface ContractKit {
  make(options?: { maxTasksPerPrincipal?: number; pageSize?: number }): Promise<TaskStore>;
  /** A store standing for another process: a second one when the fixture's stores share, else the same one. */
  other(store: TaskStore, options?: { pageSize?: number }): Promise<TaskStore>;
  /** A principal no other test uses. */
  principal(): string;
  /** Creates a working task of `who`, polled every 500 ms. */
  start(store: TaskStore, who: string | undefined, ttlMs?: number | null): Promise<TaskRecord>;
}

/** Lets the stores' deliveries of this turn (microtasks, pub/sub in flight) settle: a bounded wait. */
export const settle = (ms = 200) => new Promise((resolve) => setTimeout(resolve, ms));

/** The contract's property tests: hostile ids, principals, input keys and cursors. */
export function taskStoreProperties(kit: ContractKit): void {
  const { make, other, principal, start } = kit;

  test('property: hostile ids and principals never cross owners, never throw', async () => {
    const store = await make();
    const elsewhere = await other(store);
    const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }));
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(text, fc.option(text, { nil: undefined }), fc.option(text, { nil: undefined })),
        async ([suffix, owner, stranger]) => {
          const taskId = `${newTaskId()}${suffix}`;
          const created = await store.create({ taskId, principal: owner, ttlMs: 60_000 });
          assert.deepEqual(await elsewhere.get(taskId, owner), created);
          if (stranger !== owner) {
            assert.equal(await elsewhere.get(taskId, stranger), undefined);
            assert.equal(await elsewhere.requestCancel(taskId, stranger), false);
            assert.equal(
              (await elsewhere.list(stranger)).tasks.some((t) => t.taskId === taskId),
              false,
            );
          }
          assert.equal(await elsewhere.get(suffix, owner), undefined);
          assert.equal(await store.update(taskId, { status: 'completed', result: { suffix } }), true);
          assert.deepEqual((await elsewhere.get(taskId, owner))?.result, { suffix });
        },
      ),
      fuzzRuns(40),
    );
  });

  test('property: of any input keys answered, the runner gets exactly those asked, each once', async () => {
    const store = await make();
    const elsewhere = await other(store);
    const key = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.constantFrom('__proto__', 'constructor', 'q:x', 'i:', 'd:k', 'cx', ''),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(key, { minLength: 1, maxLength: 5 }),
        fc.array(fc.array(key, { maxLength: 6 }), { minLength: 1, maxLength: 3 }),
        async (asked, rounds) => {
          const task = await start(store, 'keys');
          const inputRequests = Object.fromEntries(asked.map((k) => [k, { method: 'roots/list' as const }]));
          await store.update(task.taskId, { status: 'input_required', inputRequests });
          const got: string[] = [];
          const stop = store.watch(task.taskId, (s) => {
            if (s.kind === 'input') got.push(...Object.keys(s.inputResponses));
          });
          const sent = new Set<string>();
          for (const round of rounds) {
            const responses = Object.fromEntries(round.map((k) => [k, { roots: [{ uri: `file:///${k}` }] }]));
            assert.equal(await elsewhere.respond(task.taskId, 'keys', responses), true);
            for (const k of round) sent.add(k);
          }
          const expected = asked.filter((k) => sent.has(k)).sort();
          await waitFor(() => got.length >= expected.length);
          await settle(50);
          stop();
          assert.deepEqual(got.sort(), expected);
        },
      ),
      fuzzRuns(25),
    );
  });

  test('property: any cursor is a page or -32602, nothing else', async () => {
    const store = await make({ pageSize: 2 });
    const who = principal();
    for (let i = 0; i < 5; i++) await start(store, who);
    const first = await store.list(who);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'binary' }),
          fc.constant(first.nextCursor ?? ''),
          fc.base64String(),
        ),
        async (cursor) => {
          try {
            const page = await store.list(who, cursor);
            assert.ok(page.tasks.every((t) => t.principal === who));
          } catch (err) {
            assert.ok(err instanceof McpError && err.code === -32602, String(err));
          }
        },
      ),
      fuzzRuns(100),
    );
  });
}

/** Resolves once `check` holds, polling; fails after 10 s. */
export async function waitFor(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
