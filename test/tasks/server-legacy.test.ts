// 2025-11-25's experimental tasks on the server, driven by the official SDK v1 client (its
// `experimental.tasks` API) over Streamable HTTP sessions of two principals.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  ListTasksResultSchema,
  McpError,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { bearer, Gate, serveTaskServer, type TaskServer } from '../../src/test-support/task-server.js';
import { until } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

const BOUND_MS = 30_000;

describe('2025-11-25 tasks, with the official SDK v1 client', () => {
  let fx: TaskServer;
  const clients: Client[] = [];
  const elicited: unknown[] = [];
  const statuses: { taskId: string; status: string }[] = [];
  /** What the client answers the next elicitations with, before its usual answer. */
  const answers: { action: 'accept'; content: Record<string, string | number> }[] = [];

  const connect = async (token: string) => {
    const client = new Client(
      { name: 'sdk-tasks', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} }, tasks: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      elicited.push(request.params);
      return answers.shift() ?? { action: 'accept', content: { name: 'Grace' } };
    });
    client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
      statuses.push({ taskId: n.params.taskId, status: n.params.status });
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(fx.url), { requestInit: { headers: bearer(token) } }),
    );
    clients.push(client);
    return client;
  };

  /** Starts `name` as a task; answers its id. */
  const start = async (client: Client, name: string) => {
    const created = (await client.request(
      { method: 'tools/call', params: { name, arguments: {}, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    )) as { task: { taskId: string; status: string; ttl: number | null; pollInterval?: number } };
    assert.equal(created.task.status, 'working');
    assert.equal(created.task.ttl, 60_000);
    assert.equal(created.task.pollInterval, 50);
    return created.task.taskId;
  };

  let ada: Client;
  let bob: Client;
  before(async () => {
    fx = await serveTaskServer();
    ada = await connect('ada-token');
    bob = await connect('bob-token');
  });
  beforeEach(() => {
    fx.gate = new Gate();
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await fx.close();
  });

  test('initialize announces the tasks capability', () => {
    assert.deepEqual(ada.getServerCapabilities()?.tasks, {
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
  });

  test('a task-augmented call: tasks/get working, tasks/result waits for the end and carries related-task', async () => {
    const taskId = await start(ada, 'gated');
    assert.equal((await ada.experimental.tasks.getTask(taskId)).status, 'working');
    const result = ada.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    // notifications/tasks/status (2025-11-25, MAY) on the stream of the tasks/result: the task as the wait
    // begins, then each change, up to the final state, before the result.
    const hear = (status: string) =>
      until(() => statuses.some((s) => s.taskId === taskId && s.status === status), BOUND_MS, status);
    await hear('working');
    fx.gate.open();
    const done = await result;
    assert.equal(toolText(done), 'done');
    assert.deepEqual(done._meta?.['io.modelcontextprotocol/related-task'], { taskId });
    const told = () => statuses.filter((s) => s.taskId === taskId).map((s) => s.status);
    assert.equal(told().at(-1), 'completed', 'the end was told before the result');
    assert.equal((await ada.experimental.tasks.getTask(taskId)).status, 'completed');
    // A tasks/result sent after the end also tells it first, whether a change or a read found it.
    statuses.length = 0;
    await ada.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    assert.deepEqual(told(), ['completed']);
  });

  test('callToolStream drives a task to its result', async () => {
    fx.gate.open();
    const seen: string[] = [];
    let text: string | undefined;
    for await (const message of ada.experimental.tasks.callToolStream(
      { name: 'gated', arguments: {} },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      seen.push(message.type);
      if (message.type === 'result') text = toolText(message.result);
      if (message.type === 'error') throw message.error;
    }
    assert.equal(seen[0], 'taskCreated');
    assert.equal(text, 'done');
  });

  test('input: the task’s elicitation is a real request on the session, tagged with the task', async () => {
    elicited.length = 0;
    const taskId = await start(ada, 'asks');
    const done = await ada.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    assert.equal(toolText(done), 'Hello, Grace!');
    assert.equal(elicited.length, 1);
    assert.deepEqual(
      (elicited[0] as { _meta?: Record<string, unknown> })._meta?.['io.modelcontextprotocol/related-task'],
      {
        taskId,
      },
    );
  });

  test('input answered with content that does not fit: the task fails with -32602 naming the field', async () => {
    answers.push({ action: 'accept', content: { name: 42 } });
    const taskId = await start(ada, 'asks');
    await assert.rejects(
      ada.experimental.tasks.getTaskResult(taskId, CallToolResultSchema),
      (err: unknown) => {
        assert.ok(err instanceof McpError, String(err));
        assert.equal(err.code, -32602);
        assert.deepEqual(err.data, { method: 'elicitation/create', field: 'result.content.name' });
        return true;
      },
    );
    assert.equal((await ada.experimental.tasks.getTask(taskId)).status, 'failed');
  });

  test('a client back on a new session is asked there, through its tasks/result, and the task goes on', async () => {
    elicited.length = 0;
    const taskId = await start(ada, 'asks');
    // The same principal on another session: where it waits on the result is where the question goes.
    const later = new Client(
      { name: 'sdk-tasks-later', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} }, tasks: {} } },
    );
    const askedLater: unknown[] = [];
    later.setRequestHandler(ElicitRequestSchema, (request) => {
      askedLater.push(request.params);
      return { action: 'accept', content: { name: 'Hopper' } };
    });
    await later.connect(
      new StreamableHTTPClientTransport(new URL(fx.url), { requestInit: { headers: bearer('ada-token') } }),
    );
    clients.push(later);
    const done = await later.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    assert.equal(toolText(done), 'Hello, Hopper!');
    assert.equal(askedLater.length, 1);
    assert.deepEqual(
      (askedLater[0] as { _meta?: Record<string, unknown> })._meta?.['io.modelcontextprotocol/related-task'],
      { taskId },
    );
    assert.deepEqual(elicited, [], 'the session that created the task was not asked');
  });

  test('an error the client answers with reaches the handler’s call: the task fails with it', async () => {
    const taskId = await start(ada, 'asks');
    const refusing = new Client(
      { name: 'sdk-tasks-refusing', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} }, tasks: {} } },
    );
    refusing.setRequestHandler(ElicitRequestSchema, () => {
      throw new Error('no one at the keyboard');
    });
    await refusing.connect(
      new StreamableHTTPClientTransport(new URL(fx.url), { requestInit: { headers: bearer('ada-token') } }),
    );
    clients.push(refusing);
    await assert.rejects(
      refusing.experimental.tasks.getTaskResult(taskId, CallToolResultSchema),
      (err: { message: string }) => /no one at the keyboard/.test(err.message),
    );
    assert.equal((await ada.experimental.tasks.getTask(taskId)).status, 'failed');
  });

  test('tasks/cancel: the task is cancelled before the answer, its handler’s signal aborted; cancelling again is -32602', async () => {
    fx.seen.aborted = undefined;
    const taskId = await start(ada, 'gated');
    const cancelled = await ada.experimental.tasks.cancelTask(taskId);
    assert.equal(cancelled.status, 'cancelled');
    const deadline = Date.now() + BOUND_MS;
    while (fx.seen.aborted === undefined && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    assert.equal(fx.seen.aborted, true);
    await assert.rejects(
      ada.experimental.tasks.cancelTask(taskId),
      (err: { code?: number; message: string }) => {
        assert.equal(err.code, -32602);
        assert.match(err.message, /already in terminal status 'cancelled'/);
        return true;
      },
    );
  });

  test('another principal cannot get, wait on, cancel or list a task', async () => {
    const taskId = await start(ada, 'gated');
    for (const attempt of [
      () => bob.experimental.tasks.getTask(taskId),
      () => bob.experimental.tasks.getTaskResult(taskId, CallToolResultSchema),
      () => bob.experimental.tasks.cancelTask(taskId),
    ]) {
      await assert.rejects(attempt(), (err: { code?: number }) => err.code === -32602);
    }
    const bobs = await bob.experimental.tasks.listTasks();
    assert.equal(
      bobs.tasks.some((t) => t.taskId === taskId),
      false,
    );
    const adas = await ada.experimental.tasks.listTasks();
    assert.equal(adas.tasks.find((t) => t.taskId === taskId)?.status, 'working');
    fx.gate.open();
    await ada.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
  });

  test('tool-level negotiation: a required tool without task and a forbidden one with it are -32601', async () => {
    await assert.rejects(
      ada.callTool({ name: 'needs_task', arguments: {} }),
      (err: { code?: number }) => err.code === -32601,
    );
    await assert.rejects(start(ada, 'plain'), (err: { code?: number }) => err.code === -32601);
  });
});

describe('2025-11-25 tasks/list, without authentication (the official SDK v1 client)', () => {
  test('a server that authenticates no one neither announces nor serves tasks/list: every caller would list every other’s tasks', async () => {
    const fx = await serveTaskServer({ anonymous: true });
    const clients: Client[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const client = new Client({ name: 'anonymous', version: '1.0.0' }, { capabilities: { tasks: {} } });
        await client.connect(new StreamableHTTPClientTransport(new URL(fx.url)));
        clients.push(client);
      }
      const [first, second] = clients;
      assert.deepEqual(first.getServerCapabilities()?.tasks, {
        cancel: {},
        requests: { tools: { call: {} } },
      });
      const created = (await first.request(
        { method: 'tools/call', params: { name: 'gated', arguments: {}, task: { ttl: 60_000 } } },
        CreateTaskResultSchema,
      )) as { task: { taskId: string } };
      for (const client of clients) {
        await assert.rejects(
          client.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema),
          (err: { code?: number; message: string }) => {
            assert.equal(err.code, -32601);
            assert.match(err.message, /only to an authenticated caller.*Keep the ids/);
            return true;
          },
        );
      }
      // The spec's fallback without authorization: the unguessable id is what keeps a task (documented).
      assert.equal((await second.experimental.tasks.getTask(created.task.taskId)).status, 'working');
      fx.gate.open();
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await fx.close();
    }
  });
});
