// The Tasks extension (2026-07-28, SEP-2663) on the server: a tool run as a task over HTTP, polled, updated and
// cancelled from other connections, bound to the principal that created it.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { TASKS_EXTENSION } from '../../src/protocol/tasks.js';
import { MemoryTaskStore } from '../../src/tasks/memory-task-store.js';
import { ManualClock } from '../../src/test-support/manual-clock.js';
import { jsonBody, post, SSEReader } from '../../src/test-support/mcp-http.js';
import { modernHeaders, modernMessage, postModern } from '../../src/test-support/modern-http.js';
import { bearer, Gate, serveTaskServer, type TaskServer } from '../../src/test-support/task-server.js';
import { within } from '../../src/test-support/time-limit.js';

const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} }, elicitation: {} };
const BOUND_MS = 30_000;

describe('Tasks extension, server side', () => {
  let fx: TaskServer;
  let nextId = 1;

  /** One modern request of `token`'s principal; answers the JSON-RPC message. */
  const call = async (
    token: string,
    method: string,
    params: Record<string, unknown>,
    capabilities: Record<string, unknown> = WITH_TASKS,
  ) => {
    const response = await postModern(fx.url, nextId++, method, params, {
      capabilities,
      headers: bearer(token),
    });
    return { status: response.status, body: await jsonBody(response) };
  };

  /** Polls tasks/get until `done` accepts the task; bounded. */
  const pollUntil = async (token: string, taskId: string, done: (task: any) => boolean) => {
    const deadline = Date.now() + BOUND_MS;
    for (;;) {
      const { body } = await call(token, 'tasks/get', { taskId });
      assert.ok(body.result, `tasks/get failed: ${JSON.stringify(body)}`);
      if (done(body.result)) return body.result;
      assert.ok(Date.now() < deadline, `task ${taskId} stayed ${body.result.status}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  const startGated = async (token = 'ada-token') => {
    const { body } = await call(token, 'tools/call', { name: 'gated', arguments: {} });
    assert.equal(body.result.resultType, 'task', JSON.stringify(body));
    return body.result.taskId as string;
  };

  before(async () => {
    fx = await serveTaskServer();
  });
  beforeEach(() => {
    fx.gate = new Gate();
    fx.seen.aborted = undefined;
  });
  after(async () => {
    await fx.close();
    // Refusals reach onerror too (for metrics); nothing else may.
    assert.deepEqual(
      fx.errors.filter((e) => e.name !== 'HTTPRejectionError'),
      [],
    );
  });

  test('discover names the extension, never a tasks capability', async () => {
    const { body } = await call('ada-token', 'server/discover', {});
    assert.deepEqual(body.result.capabilities.extensions, { [TASKS_EXTENSION]: {} });
    assert.equal(body.result.capabilities.tasks, undefined);
  });

  test('a tool that may run as a task answers CreateTaskResult, then tasks/get shows it working and completed', async () => {
    const { body } = await call('ada-token', 'tools/call', { name: 'gated', arguments: {} });
    const created = body.result;
    assert.equal(created.resultType, 'task');
    assert.equal(created.status, 'working');
    assert.equal(created.ttlMs, 3_600_000);
    assert.equal(created.pollIntervalMs, 50);
    assert.match(created.createdAt, /^\d{4}-\d{2}-\d{2}T/);
    for (const absent of ['task', 'result', 'requestState', 'inputRequests', 'ttl']) {
      assert.equal(absent in created, false, absent);
    }
    const working = await call('ada-token', 'tasks/get', { taskId: created.taskId });
    assert.equal(working.body.result.resultType, 'complete');
    assert.equal(working.body.result.status, 'working');
    fx.gate.open();
    const done = await pollUntil('ada-token', created.taskId, (t) => t.status === 'completed');
    assert.deepEqual(done.result.content, [{ type: 'text', text: 'done' }]);
  });

  test('without the extension declared: an optional tool runs plain, a required one is -32021 naming it', async () => {
    fx.gate.open();
    const plain = await call('ada-token', 'tools/call', { name: 'gated', arguments: {} }, {});
    assert.equal(plain.body.result.resultType, 'complete');
    const required = await call('ada-token', 'tools/call', { name: 'needs_task', arguments: {} }, {});
    assert.equal(required.status, 400);
    assert.equal(required.body.error.code, -32021);
    assert.deepEqual(required.body.error.data, {
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
    const get = await call('ada-token', 'tasks/get', { taskId: 'x' }, {});
    assert.equal(get.body.error.code, -32021);
  });

  test('tasks/cancel reaches the handler’s signal and the task ends cancelled', async () => {
    const taskId = await startGated();
    const ack = await call('ada-token', 'tasks/cancel', { taskId });
    assert.deepEqual(Object.keys(ack.body.result).sort(), ['_meta', 'resultType']);
    const ended = await pollUntil('ada-token', taskId, (t) => t.status !== 'working');
    assert.equal(ended.status, 'cancelled');
    const deadline = Date.now() + BOUND_MS;
    while (fx.seen.aborted === undefined && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    assert.equal(fx.seen.aborted, true);
  });

  test('another principal gets not-found on get, update and cancel, the same as an unknown id', async () => {
    const taskId = await startGated();
    const unknown = await call('bob-token', 'tasks/get', { taskId: 'no-such-task' });
    assert.equal(unknown.body.error.code, -32602);
    for (const [method, params] of [
      ['tasks/get', { taskId }],
      ['tasks/update', { taskId, inputResponses: {} }],
      ['tasks/cancel', { taskId }],
    ] as const) {
      const { body } = await call('bob-token', method, params);
      assert.equal(body.error?.code, -32602, method);
      assert.equal(body.error.message, unknown.body.error.message.replace('no-such-task', taskId), method);
    }
    const mine = await call('ada-token', 'tasks/get', { taskId });
    assert.equal(mine.body.result.status, 'working');
    fx.gate.open();
    await pollUntil('ada-token', taskId, (t) => t.status === 'completed');
  });

  test('input_required: the elicitation is the task’s inputRequests, answered by tasks/update', async () => {
    const { body } = await call('ada-token', 'tools/call', { name: 'asks', arguments: {} });
    const taskId = body.result.taskId;
    const waiting = await pollUntil('ada-token', taskId, (t) => t.status === 'input_required');
    const [key, ...more] = Object.keys(waiting.inputRequests);
    assert.equal(more.length, 0);
    assert.equal(waiting.inputRequests[key].method, 'elicitation/create');
    const ack = await call('ada-token', 'tasks/update', {
      taskId,
      inputResponses: {
        [key]: { action: 'accept', content: { name: 'Ada' } },
        unknown: { action: 'decline' },
      },
    });
    assert.equal(ack.body.result.resultType, 'complete');
    const done = await pollUntil('ada-token', taskId, (t) => t.status === 'completed');
    assert.deepEqual(done.result.content, [{ type: 'text', text: 'Hello, Ada!' }]);
  });

  test('a tasks/update whose answer does not fit what the task asks, or claims to be an error the server relayed, is -32602 naming it; a corrected one is taken', async () => {
    const { body } = await call('ada-token', 'tools/call', { name: 'asks', arguments: {} });
    const taskId = body.result.taskId;
    const waiting = await pollUntil('ada-token', taskId, (t) => t.status === 'input_required');
    const [key] = Object.keys(waiting.inputRequests);
    for (const [answer, at, problem] of [
      [{ action: 'accept', content: { name: 7 } }, '.content.name', 'must be a string'],
      [{ action: 'accept' }, '.content.name', 'is required'],
      [
        { action: 'accept', content: 'Ada' },
        '.content',
        "must be an object (the form's values by property name)",
      ],
    ] as const) {
      const wrong = await call('ada-token', 'tasks/update', { taskId, inputResponses: { [key]: answer } });
      const field = `inputResponses["${key}"]${at}`;
      assert.deepEqual(wrong.body.error, {
        code: -32602,
        message: `Invalid answer to elicitation/create from the client: ${field} ${problem}`,
        data: { method: 'elicitation/create', field },
      });
    }
    const forged = await call('ada-token', 'tasks/update', {
      taskId,
      inputResponses: { [key]: { 'mcpwire/clientError': { code: -32603, message: 'x' } } },
    });
    assert.equal(forged.body.error.code, -32602);
    assert.match(forged.body.error.message, new RegExp(`inputResponses\\.${key} has "mcpwire/clientError"`));
    // Nothing wrong reached the task: it still waits for the same question.
    const still = await call('ada-token', 'tasks/get', { taskId });
    assert.equal(still.body.result.status, 'input_required');
    assert.deepEqual(Object.keys(still.body.result.inputRequests), [key]);
    await call('ada-token', 'tasks/update', {
      taskId,
      inputResponses: { [key]: { action: 'accept', content: { name: 'Ada' } } },
    });
    const done = await pollUntil('ada-token', taskId, (t) => t.status === 'completed');
    assert.deepEqual(done.result.content, [{ type: 'text', text: 'Hello, Ada!' }]);
  });

  test('deferTask: an MRTR round first, then ctx.startTask() answers the retry with the task; plain without tasks', async () => {
    const first = await call('ada-token', 'tools/call', { name: 'deferred', arguments: {} });
    assert.equal(first.body.result.resultType, 'input_required');
    assert.equal('taskId' in first.body.result, false);
    const [key] = Object.keys(first.body.result.inputRequests);
    const retry = await call('ada-token', 'tools/call', {
      name: 'deferred',
      arguments: {},
      inputResponses: { [key]: { action: 'accept', content: {} } },
      requestState: first.body.result.requestState,
    });
    const created = retry.body.result;
    assert.equal(created.resultType, 'task', JSON.stringify(retry.body));
    assert.equal('requestState' in created, false);
    fx.gate.open();
    const done = await pollUntil('ada-token', created.taskId, (t) => t.status === 'completed');
    assert.deepEqual(done.result.content, [{ type: 'text', text: 'accept as a task' }]);
    // Without the extension the same handler finishes as a plain call.
    const plainFirst = await call(
      'ada-token',
      'tools/call',
      { name: 'deferred', arguments: {} },
      { elicitation: {} },
    );
    const plain = await call(
      'ada-token',
      'tools/call',
      {
        name: 'deferred',
        arguments: {},
        inputResponses: { [key]: { action: 'decline' } },
        requestState: plainFirst.body.result.requestState,
      },
      { elicitation: {} },
    );
    assert.equal(plain.body.result.resultType, 'complete');
    assert.deepEqual(plain.body.result.content, [{ type: 'text', text: 'decline as a call' }]);
  });

  test('Mcp-Name must match the task id: a mismatch is 400 -32020', async () => {
    const taskId = await startGated();
    const response = await post(
      fx.url,
      modernMessage(nextId++, 'tasks/get', { taskId }, { capabilities: WITH_TASKS }),
      {
        headers: { ...modernHeaders('tasks/get', 'some-other-task'), ...bearer('ada-token') },
      },
    );
    assert.equal(response.status, 400);
    assert.equal((await jsonBody(response)).error.code, -32020);
    const missing = await post(
      fx.url,
      modernMessage(nextId++, 'tasks/get', { taskId }, { capabilities: WITH_TASKS }),
      {
        headers: { ...modernHeaders('tasks/get'), ...bearer('ada-token') },
      },
    );
    assert.equal(missing.status, 400);
    fx.gate.open();
    await pollUntil('ada-token', taskId, (t) => t.status === 'completed');
  });

  test('a listen stream that asked for a task id hears its changes as notifications/tasks, full task each', async () => {
    const taskId = await startGated();
    const response = await postModern(
      fx.url,
      nextId++,
      'subscriptions/listen',
      { notifications: { taskIds: [taskId] } },
      { capabilities: WITH_TASKS, headers: bearer('ada-token') },
    );
    assert.equal(response.status, 200);
    const reader = new SSEReader(response);
    const ack = await within(reader.nextMessage(), BOUND_MS, 'the ack');
    assert.deepEqual(ack?.message.params.notifications, { taskIds: [taskId] });
    fx.gate.open();
    for (;;) {
      const next = await within(reader.nextMessage(), BOUND_MS, 'a task notification');
      assert.equal(next?.message.method, 'notifications/tasks');
      assert.equal(next.message.params.taskId, taskId);
      if (next.message.params.status === 'completed') {
        assert.deepEqual(next.message.params.result.content, [{ type: 'text', text: 'done' }]);
        break;
      }
    }
    await reader.cancel();
  });

  test('a listen asking for task ids without the extension declared is -32021', async () => {
    const { status, body } = await call(
      'ada-token',
      'subscriptions/listen',
      { notifications: { taskIds: ['t'] } },
      {},
    );
    assert.equal(status, 400);
    assert.equal(body.error.code, -32021);
  });

  test('a task outlives the connection that created it: the creator goes away, another connection polls it', async () => {
    const controller = new AbortController();
    const response = await postModern(
      fx.url,
      nextId++,
      'tools/call',
      { name: 'gated', arguments: {} },
      { capabilities: WITH_TASKS, headers: bearer('ada-token'), signal: controller.signal },
    );
    const taskId = (await jsonBody(response)).result.taskId;
    controller.abort();
    fx.gate.open();
    const done = await pollUntil('ada-token', taskId, (t) => t.status === 'completed');
    assert.deepEqual(done.result.content, [{ type: 'text', text: 'done' }]);
    assert.equal(fx.seen.aborted, false);
  });

  test('params are checked with a message naming the field', async () => {
    const { status, body } = await call('ada-token', 'tasks/update', { taskId: 'x', inputResponses: 3 });
    assert.equal(status, 400);
    assert.equal(body.error.code, -32602);
    assert.match(body.error.message, /params\.inputResponses must be an object/);
  });
});

describe('Tasks extension, expiry', () => {
  test('a task is gone ttlMs after its creation: tasks/get is -32602 and the store frees it', async () => {
    const clock = new ManualClock();
    const fx = await serveTaskServer({ clock, ttlMs: 60_000 });
    try {
      fx.gate.open();
      const response = await postModern(
        fx.url,
        1,
        'tools/call',
        { name: 'gated', arguments: {} },
        { capabilities: WITH_TASKS, headers: bearer('ada-token') },
      );
      const created = (await jsonBody(response)).result;
      assert.equal(created.ttlMs, 60_000);
      const get = async () =>
        jsonBody(
          await postModern(
            fx.url,
            2,
            'tasks/get',
            { taskId: created.taskId },
            { capabilities: WITH_TASKS, headers: bearer('ada-token') },
          ),
        );
      const deadline = Date.now() + BOUND_MS;
      while ((await get()).result?.status !== 'completed')
        assert.ok(Date.now() < deadline, 'the task never completed');
      assert.equal(fx.store.size, 1);
      clock.advance(59_999);
      assert.equal((await get()).result.status, 'completed');
      clock.advance(1);
      assert.equal((await get()).error.code, -32602);
      clock.advance(60_000);
      assert.equal(fx.store.size, 0);
    } finally {
      await fx.close();
    }
  });
});

describe('Tasks extension, the bound per principal', () => {
  test('past maxTasksPerPrincipal running tasks a tools/call is 429 with -32603 saying what to do; others are not bound by it', async () => {
    const fx = await serveTaskServer({ store: new MemoryTaskStore({ maxTasksPerPrincipal: 2 }) });
    let id = 1;
    const callGated = async (token: string) => {
      const response = await postModern(
        fx.url,
        id++,
        'tools/call',
        { name: 'gated', arguments: {} },
        { capabilities: WITH_TASKS, headers: bearer(token) },
      );
      return { status: response.status, body: await jsonBody(response) };
    };
    try {
      for (let i = 0; i < 2; i++) assert.equal((await callGated('ada-token')).body.result.resultType, 'task');
      const refused = await callGated('ada-token');
      assert.equal(refused.status, 429);
      assert.equal(refused.body.error.code, -32603);
      assert.match(refused.body.error.message, /maximum of 2 tasks.*Wait for one to end, or cancel one/);
      assert.equal(
        (await callGated('bob-token')).body.result.resultType,
        'task',
        'bob has a bound of his own',
      );
      assert.deepEqual(
        fx.errors.map((e) => e.name),
        ['TaskLimitError'],
        'the refusal reaches onerror, for metrics',
      );
      fx.gate.open();
      const deadline = Date.now() + BOUND_MS;
      for (;;) {
        const again = await callGated('ada-token');
        if (again.status === 200) {
          assert.equal(again.body.result.resultType, 'task');
          break;
        }
        assert.ok(Date.now() < deadline, 'ada could never start a task again once hers ended');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      fx.gate.open();
      await fx.close();
    }
  });
});
