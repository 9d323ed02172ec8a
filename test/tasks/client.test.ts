// The client's side of tasks against mcpwire's own task server over HTTP, in both eras: callTool follows a
// task to its end (input answered by the Client's handlers), an abort reaches the tool as tasks/cancel, and a
// task started by a client that went away is picked up from its id on a new connection.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { Client, type ClientOptions } from '../../src/client/client.js';
import type { ClientSession } from '../../src/client/client-session.js';
import { connectUrl } from '../../src/client/negotiation/connect-url.js';
import type { Task } from '../../src/client/task-types.js';
import { McpError } from '../../src/jsonrpc/errors.js';
import { RequestCancelledError } from '../../src/peer/errors.js';
import { bearer, Gate, serveTaskServer, type TaskServer } from '../../src/test-support/task-server.js';
import { until, within } from '../../src/test-support/time-limit.js';

const BOUND = { timeout: 60_000 };
const MS = 30_000;

for (const era of ['modern', 'legacy'] as const) {
  describe(`client tasks against mcpwire's server, ${era} era`, () => {
    let fx: TaskServer;
    const sessions: ClientSession[] = [];

    /** The JSON-RPC methods this test's clients POSTed, in order. */
    const posted: string[] = [];
    const counting: typeof fetch = (input, init) => {
      if (typeof init?.body === 'string') {
        try {
          posted.push(JSON.parse(init.body).method);
        } catch {}
      }
      return fetch(input, init);
    };
    const connect = async (token = 'ada-token', options: ClientOptions = {}) => {
      const client = new Client(
        { name: 'task-client', version: '1' },
        {
          era,
          requestTimeoutMs: MS,
          tasks: { minPollIntervalMs: 10 },
          elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) },
          ...options,
        },
      );
      const session = await within(
        connectUrl(client, fx.url, { headers: bearer(token), fetch: counting }),
        MS,
        'connect',
      );
      sessions.push(session);
      return session;
    };

    before(async () => {
      fx = await serveTaskServer();
    });
    beforeEach(() => {
      fx.gate = new Gate();
      fx.seen.aborted = undefined;
    });
    after(async () => {
      await Promise.all(sessions.map((s) => s.close().catch(() => {})));
      await fx.close();
    });

    test(
      'callTool runs a task through: the elicitation answered by the handler, the result returned',
      BOUND,
      async () => {
        const session = await connect();
        assert.equal(session.era, era);
        const statuses: string[] = [];
        const result = await within(
          session.callTool('asks', {}, { ontask: (t) => statuses.push(t.status) }),
          MS,
          'callTool asks',
        );
        assert.deepEqual(result.content, [{ type: 'text', text: 'Hello, Ada!' }]);
        assert.equal(statuses[0], 'working');
        assert.equal(statuses.at(-1), 'completed');
        assert.deepEqual(fx.errors, []);
      },
    );

    test(
      'the server pushes the task’s changes: with polls an hour apart the call still ends as soon as the task does',
      BOUND,
      async () => {
        const session = await connect('ada-token', {
          tasks: { minPollIntervalMs: 3_600_000, maxPollIntervalMs: 3_600_000 },
        });
        posted.length = 0;
        const statuses: string[] = [];
        const asks = await within(
          session.callTool('asks', {}, { ontask: (t) => statuses.push(t.status) }),
          MS,
          'callTool asks',
        );
        assert.deepEqual(asks.content, [{ type: 'text', text: 'Hello, Ada!' }]);
        assert.equal(statuses.at(-1), 'completed');
        const gated = session.callTool('gated', {}, { ontask: (t) => statuses.push(t.status) });
        await until(() => statuses.at(-1) === 'working', MS, 'the gated task');
        fx.gate.open();
        assert.deepEqual((await within(gated, MS, 'callTool gated')).content, [
          { type: 'text', text: 'done' },
        ]);
        // 2026: one read per task once the listen stream covers it; 2025: none, tasks/result and its statuses.
        const polls = posted.filter((m) => m === 'tasks/get').length;
        assert.equal(polls, era === 'modern' ? 2 : 0, posted.join(' '));
        if (era === 'modern') assert.ok(posted.includes('subscriptions/listen'));
      },
    );

    test('aborting the call sends tasks/cancel: the tool sees its signal abort', BOUND, async () => {
      const session = await connect();
      const abort = new AbortController();
      let task: Task | undefined;
      const call = session.callTool(
        'gated',
        {},
        {
          signal: abort.signal,
          ontask: (t) => {
            task ??= t;
            abort.abort(new Error('changed my mind'));
          },
        },
      );
      await assert.rejects(within(call, MS, 'callTool gated'), RequestCancelledError);
      await until(() => fx.seen.aborted === true, MS, 'the tool to see the cancel');
      const after = await session.tasks.get(task!.taskId);
      assert.equal(after.status, 'cancelled');
    });

    test(
      'a task started by a client that went away is resumed from its id on a new connection',
      BOUND,
      async () => {
        const first = await connect();
        const start = await within(first.tasks.start('gated', {}), MS, 'start');
        assert.ok('task' in start, JSON.stringify(start));
        const { taskId } = start.task;
        await first.close();
        const second = await connect();
        assert.equal((await second.tasks.get(taskId)).status, 'working');
        const seen: string[] = [];
        const resumed = second.tasks.resume(taskId, { ontask: (t) => seen.push(t.status) });
        await until(() => seen.length > 0, MS, 'the first poll');
        fx.gate.open();
        const result = await within(resumed, MS, 'resume');
        assert.deepEqual(result.content, [{ type: 'text', text: 'done' }]);
        assert.equal(seen.at(-1), 'completed');
      },
    );

    test(
      'a task that asks after its client went away asks the client that resumes it, on its new connection',
      BOUND,
      async () => {
        const first = await connect('ada-token', {
          elicitation: { form: () => Promise.reject(new Error('the first connection was asked')) },
        });
        const start = await within(first.tasks.start('asks', {}), MS, 'start');
        assert.ok('task' in start, JSON.stringify(start));
        await first.close();
        const asked: string[] = [];
        const second = await connect('ada-token', {
          elicitation: {
            form: (params) => {
              asked.push(params.message);
              return { action: 'accept', content: { name: 'Lin' } };
            },
          },
        });
        const result = await within(second.tasks.resume(start.task.taskId), MS, 'resume');
        assert.deepEqual(result.content, [{ type: 'text', text: 'Hello, Lin!' }]);
        assert.deepEqual(asked, ['Your name?']);
      },
    );

    test(
      'another principal cannot read the task: the server answers as for an unknown id',
      BOUND,
      async () => {
        const ada = await connect();
        const start = await within(ada.tasks.start('gated', {}), MS, 'start');
        assert.ok('task' in start);
        const bob = await connect('bob-token');
        await assert.rejects(
          bob.tasks.get(start.task.taskId),
          (err) => err instanceof McpError && err.code === -32602,
        );
        fx.gate.open();
        await within(ada.tasks.resume(start.task.taskId), MS, 'resume');
      },
    );

    test(
      'without the tasks option a tool that must run as a task fails; one that may runs plainly',
      BOUND,
      async () => {
        const session = await connect('ada-token', { tasks: false });
        await assert.rejects(session.callTool('needs_task', {}), McpError);
        fx.gate.open();
        const plain = await within(session.callTool('gated', {}), MS, 'gated without tasks');
        assert.deepEqual(plain.content, [{ type: 'text', text: 'done' }]);
      },
    );
  });
}
