// Tasks across `mcpwire serve --redis` processes (issue 16 part 5): a task started through one process is polled,
// answered and cancelled through another, its changes reach a listen stream on another, it outlives its client's
// connection (a 2025 task asks its question on the session the client came back on, through another process), and
// a process killed with SIGKILL leaves its task failed (saying why, and told to listeners on the other) rather than
// working forever.
// Each request goes to the process the test names, no proxy between. Needs `npm run build` and redis-server.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { connectUrl } from '../../src/client/negotiation/connect-url.js';
import { TASKS_EXTENSION } from '../../src/protocol/tasks.js';
import { RUNNER_STOPPED_MESSAGE } from '../../src/tasks/task-record.js';
import { jsonBody, SSEReader } from '../../src/test-support/mcp-http.js';
import { postModern } from '../../src/test-support/modern-http.js';
import { type ProcessCluster, startProcessCluster } from '../../src/test-support/process-cluster.js';
import { type RedisBackend, startRedisBackend } from '../../src/test-support/redis-backend.js';
import { within } from '../../src/test-support/time-limit.js';

const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} }, elicitation: {} };
const BOUND_MS = 60_000;
/** A short lease, so that a killed process's task is failed within seconds. */
const LEASE_MS = 1500;

let redis: RedisBackend;
let cluster: ProcessCluster;
let nextId = 1;

before(async () => {
  redis = await startRedisBackend();
  cluster = await startProcessCluster(2, {
    redis: redis.address,
    env: { MCPWIRE_TASK_LEASE_MS: String(LEASE_MS) },
  });
});

after(async () => {
  await cluster?.stopAll();
  await redis?.stop();
});

/** One 2026-07-28 request to process `p`, declaring the Tasks extension; its JSON-RPC answer. */
async function call(p: number, method: string, params: Record<string, unknown>, signal?: AbortSignal) {
  const response = await postModern(`${cluster.processes[p].url}/mcp`, nextId++, method, params, {
    capabilities: WITH_TASKS,
    signal,
  });
  const body = await jsonBody(response);
  assert.ok(body.result, `${method} through process ${p + 1}: ${JSON.stringify(body)}`);
  return body.result;
}

/** Starts the demo's countdown as a task through process `p`: its id. */
async function countdown(p: number, args: Record<string, unknown>, signal?: AbortSignal): Promise<string> {
  const result = await call(p, 'tools/call', { name: 'countdown', arguments: args }, signal);
  assert.equal(result.resultType, 'task', JSON.stringify(result));
  assert.equal(result.status, 'working');
  return result.taskId;
}

/** A listen on process `p` for the changes of `taskId`, acknowledged. */
async function listenOn(p: number, taskId: string): Promise<SSEReader> {
  const listen = await postModern(
    `${cluster.processes[p].url}/mcp`,
    nextId++,
    'subscriptions/listen',
    { notifications: { taskIds: [taskId] } },
    { capabilities: WITH_TASKS },
  );
  assert.equal(listen.status, 200);
  const reader = new SSEReader(listen);
  await within(reader.nextMessage(), BOUND_MS, 'the listen ack');
  return reader;
}

/** Polls `tasks/get` through process `p` until `done` accepts the task; bounded. */
async function pollUntil(p: number, taskId: string, done: (task: any) => boolean, what: string) {
  const deadline = Date.now() + BOUND_MS;
  for (;;) {
    const task = await call(p, 'tasks/get', { taskId });
    if (done(task)) return task;
    assert.ok(Date.now() < deadline, `${what}: task still ${task.status} after ${BOUND_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('Tasks across mcpwire serve --redis processes', () => {
  test('started through process 1, answered through process 2, and its changes heard by a listen on process 2', async () => {
    const taskId = await countdown(0, { from: 2, ask: true });
    const reader = await listenOn(1, taskId);
    // The question comes 1 s after the start; a listen hears changes, not the state it began in, so one acknowledged
    // after the question (a busy machine) cannot hear it come. Read after the ack: still working means it must.
    const askedFirst = (await call(1, 'tasks/get', { taskId })).status === 'input_required';
    const asking = await pollUntil(1, taskId, (t) => t.status === 'input_required', 'the question');
    const [key] = Object.keys(asking.inputRequests);
    assert.equal(asking.inputRequests[key].method, 'elicitation/create');
    await call(1, 'tasks/update', {
      taskId,
      inputResponses: { [key]: { action: 'accept', content: { go: true } } },
    });
    const done = await pollUntil(1, taskId, (t) => t.status === 'completed', 'the end');
    assert.deepEqual(done.result.content, [{ type: 'text', text: 'Liftoff after 2 s' }]);
    // notifications/tasks on process 2 for a task process 1 runs: its statuses, through the end.
    const heard: string[] = [];
    while (heard.at(-1) !== 'completed') {
      const next = await within(reader.nextMessage(), BOUND_MS, 'a task notification');
      assert.equal(next?.message.method, 'notifications/tasks');
      assert.equal(next.message.params.taskId, taskId);
      heard.push(next.message.params.status);
    }
    if (!askedFirst) assert.ok(heard.includes('input_required'), heard.join());
    // Answered after the ack: the task working again is heard whatever the timing.
    assert.ok(heard.includes('working'), heard.join());
    await reader.cancel();
  });

  test('2025 era: a task started on a session through process 1 asks its question on the session its client came back on, through process 2', async () => {
    const client = (asked: string[]) =>
      new Client(
        { name: 'cross-process-tasks', version: '1' },
        {
          era: 'legacy',
          tasks: true,
          requestTimeoutMs: BOUND_MS,
          elicitation: {
            form: (params) => {
              asked.push(params.message);
              return { action: 'accept', content: { go: true } };
            },
          },
        },
      );
    const askedFirst: string[] = [];
    const first = await connectUrl(client(askedFirst), `${cluster.processes[0].url}/mcp`);
    const start = await first.tasks.start('countdown', { from: 2, ask: true });
    assert.ok('task' in start, JSON.stringify(start));
    await first.close();
    const askedSecond: string[] = [];
    const second = await connectUrl(client(askedSecond), `${cluster.processes[1].url}/mcp`);
    try {
      assert.equal(second.era, 'legacy');
      const result = await within(second.tasks.resume(start.task.taskId), BOUND_MS, 'the resumed task');
      assert.deepEqual(result.content, [{ type: 'text', text: 'Liftoff after 2 s' }]);
      assert.deepEqual(askedSecond, ['1 to go: keep counting?']);
      assert.deepEqual(askedFirst, []);
    } finally {
      await second.close();
    }
  });

  test('2026 era: a client following through process 2 a task process 1 runs hears its changes, polls an hour apart', async () => {
    const taskId = await countdown(0, { from: 2, ask: true });
    const requested: string[] = [];
    const counting: typeof fetch = (input, init) => {
      if (typeof init?.body === 'string') requested.push(JSON.parse(init.body).method);
      return fetch(input, init);
    };
    const asked: string[] = [];
    const client = new Client(
      { name: 'cross-process-listen', version: '1' },
      {
        era: 'modern',
        tasks: { minPollIntervalMs: 3_600_000, maxPollIntervalMs: 3_600_000 },
        requestTimeoutMs: BOUND_MS,
        elicitation: {
          form: (params) => {
            asked.push(params.message);
            return { action: 'accept', content: { go: true } };
          },
        },
      },
    );
    const session = await connectUrl(client, `${cluster.processes[1].url}/mcp`, { fetch: counting });
    try {
      const result = await within(session.tasks.resume(taskId), BOUND_MS, 'the task, followed on its pushes');
      assert.deepEqual(result.content, [{ type: 'text', text: 'Liftoff after 2 s' }]);
      assert.deepEqual(asked, ['1 to go: keep counting?']);
      // The resume's own read, and one once the listen stream covered the task: the rest was pushed.
      assert.equal(requested.filter((m) => m === 'tasks/get').length, 2, requested.join(' '));
    } finally {
      await session.close();
    }
  });

  test('started through process 1, cancelled through process 2', async () => {
    const taskId = await countdown(0, { from: 3600 });
    assert.equal((await call(1, 'tasks/get', { taskId })).status, 'working');
    await call(1, 'tasks/cancel', { taskId });
    const cancelled = await pollUntil(1, taskId, (t) => t.status !== 'working', 'the cancel');
    assert.equal(cancelled.status, 'cancelled');
    assert.equal((await call(0, 'tasks/get', { taskId })).status, 'cancelled');
  });

  test('a task outlives the connection of the client that started it', async () => {
    const controller = new AbortController();
    const taskId = await countdown(0, { from: 2 }, controller.signal);
    controller.abort();
    const done = await pollUntil(1, taskId, (t) => t.status === 'completed', 'the end');
    assert.deepEqual(done.result.content, [{ type: 'text', text: 'Liftoff after 2 s' }]);
  });

  test('kill -9 of the process running a task: the other tells its listeners and answers it failed, saying why', async () => {
    const taskId = await countdown(0, { from: 3600 });
    assert.equal((await call(1, 'tasks/get', { taskId })).status, 'working');
    const reader = await listenOn(1, taskId);
    await cluster.kill(0, 'SIGKILL');
    // No poll: process 2 finds process 1's lease gone on its own, within a lease or two. A change the task made
    // before the kill (its countdown's status message) may be heard first.
    let heard = await within(reader.nextMessage(), BOUND_MS, 'the failure notified');
    while (heard?.message.params?.status === 'working')
      heard = await within(reader.nextMessage(), BOUND_MS, 'the failure notified');
    assert.equal(heard?.message.method, 'notifications/tasks');
    assert.equal(heard.message.params.status, 'failed');
    assert.equal(heard.message.params.statusMessage, RUNNER_STOPPED_MESSAGE);
    await reader.cancel();
    const failed = await call(1, 'tasks/get', { taskId });
    assert.equal(failed.status, 'failed');
    assert.equal(failed.statusMessage, RUNNER_STOPPED_MESSAGE);
    assert.equal(failed.error.message, RUNNER_STOPPED_MESSAGE);
    // Final: it stays so, through a process started afresh too.
    await cluster.restart(0);
    assert.equal((await call(0, 'tasks/get', { taskId })).status, 'failed');
  });
});
