import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { McpError } from '../jsonrpc/errors.js';
import { RequestCancelledError, RequestTimeoutError } from '../peer/errors.js';
import { TASKS_EXTENSION } from '../protocol/tasks.js';
import { ManualClock } from '../test-support/manual-clock.js';
import {
  taskClient as client,
  done,
  ELICIT,
  legacyPeer,
  modernPeer,
  modernTask,
  sent,
} from '../test-support/task-peers.js';
import { until, within } from '../test-support/time-limit.js';
import { type Task, TaskCancelledError } from './task-types.js';

/*
 * callTool and session.tasks against scripted servers of both eras (Tasks extension SEP-2663; 2025-11-25
 * experimental tasks): what goes on the wire, in which order, and what the caller gets. These peers push
 * nothing (their listen is -32601): the client polls.
 */

describe('tasks, modern era (the extension)', () => {
  test('callTool follows a task: polls, answers input with the handlers once per key, resolves with the result', async () => {
    const peer = modernPeer({ resultType: 'task', ...modernTask('working') }, [
      modernTask('working', { statusMessage: 'warming up' }),
      modernTask('input_required', { inputRequests: { who: ELICIT } }),
      modernTask('input_required', { inputRequests: { who: ELICIT } }),
      modernTask('completed', { result: done('Hello, Ada') }),
    ]);
    const session = await within(client().connect(peer.connection), 10_000, 'connect');
    try {
      const seen: Task[] = [];
      const out = await within(
        session.callTool('slow', {}, { ontask: (t) => seen.push(t) }),
        10_000,
        'callTool',
      );
      assert.deepEqual(out, done('Hello, Ada'));
      assert.deepEqual(
        seen.map((t) => [t.status, t.statusMessage]),
        [
          ['working', undefined],
          ['working', 'warming up'],
          ['input_required', undefined],
          ['completed', undefined],
        ],
      );
      const call = sent(peer, 'tools/call')[0];
      assert.deepEqual(call.params._meta['io.modelcontextprotocol/clientCapabilities'].extensions, {
        [TASKS_EXTENSION]: {},
      });
      const updates = sent(peer, 'tasks/update');
      assert.equal(updates.length, 1, 'a key seen on two polls is answered once');
      assert.deepEqual(updates[0].params.taskId, 't-1');
      assert.deepEqual(updates[0].params.inputResponses, {
        who: { action: 'accept', content: { name: 'Ada for Name?' } },
      });
      for (const get of sent(peer, 'tasks/get')) {
        assert.ok(get.params._meta['io.modelcontextprotocol/protocolVersion'], 'tasks/get has the envelope');
      }
    } finally {
      await session.close();
    }
  });

  test('a CreateTaskResult already completed carries no result: tasks/get is asked for it', async () => {
    const peer = modernPeer({ resultType: 'task', ...modernTask('completed') }, [
      modernTask('completed', { result: done('late') }),
    ]);
    const session = await within(client().connect(peer.connection), 10_000, 'connect');
    try {
      let told = 0;
      const out = await within(
        session.callTool(
          'slow',
          {},
          {
            ontask: () => {
              told++;
              throw new Error('a listener that throws is reported, the call goes on');
            },
          },
        ),
        10_000,
        'callTool',
      );
      assert.deepEqual(out, done('late'));
      assert.equal(told, 1, 'the same status is told once');
      assert.equal(sent(peer, 'tasks/get').length, 1);
    } finally {
      await session.close();
    }
  });

  test('failed rejects with the task error; cancelled with TaskCancelledError', async () => {
    const failing = modernPeer({ resultType: 'task', ...modernTask('working') }, [
      modernTask('failed', { error: { code: -32603, message: 'rate limited', data: { retry: 5 } } }),
    ]);
    const cancelled = modernPeer({ resultType: 'task', ...modernTask('working') }, [
      modernTask('cancelled', { statusMessage: 'stopped by an operator' }),
    ]);
    for (const [peer, check] of [
      [
        failing,
        (err: unknown) => err instanceof McpError && err.code === -32603 && err.message === 'rate limited',
      ],
      [
        cancelled,
        (err: unknown) => err instanceof TaskCancelledError && /stopped by an operator/.test(err.message),
      ],
    ] as const) {
      const session = await within(client().connect(peer.connection), 10_000, 'connect');
      try {
        await assert.rejects(within(session.callTool('slow', {}), 10_000, 'callTool'), check);
        assert.equal(sent(peer, 'tasks/cancel').length, 0);
      } finally {
        await session.close();
      }
    }
  });

  test('aborting sends tasks/cancel, then rejects with RequestCancelledError', async () => {
    const peer = modernPeer({ resultType: 'task', ...modernTask('working') }, [modernTask('working')]);
    const session = await within(client().connect(peer.connection), 10_000, 'connect');
    try {
      const abort = new AbortController();
      const call = session.callTool(
        'slow',
        {},
        {
          signal: abort.signal,
          ontask: () => abort.abort(new Error('enough')),
        },
      );
      await assert.rejects(within(call, 10_000, 'callTool'), RequestCancelledError);
      assert.deepEqual(
        sent(peer, 'tasks/cancel').map((m) => m.params.taskId),
        ['t-1'],
      );
    } finally {
      await session.close();
    }
  });

  test('a handler that fails cancels the task: nobody else would answer it', async () => {
    const peer = modernPeer({ resultType: 'task', ...modernTask('working') }, [
      modernTask('input_required', { inputRequests: { who: ELICIT } }),
    ]);
    const failing = client({ elicitation: { form: () => Promise.reject(new Error('no terminal')) } });
    const session = await within(failing.connect(peer.connection), 10_000, 'connect');
    try {
      await assert.rejects(within(session.callTool('slow', {}), 10_000, 'callTool'), /no terminal/);
      assert.equal(sent(peer, 'tasks/cancel').length, 1);
    } finally {
      await session.close();
    }
  });

  test("a task's input requests that a 2025 server could not send are refused before any handler runs", async () => {
    const peer = modernPeer({ resultType: 'task', ...modernTask('working') }, [
      modernTask('input_required', { inputRequests: { who: { ...ELICIT, params: { message: 7 } } } }),
    ]);
    let asked = 0;
    const counting = client({
      elicitation: {
        form: () => {
          asked++;
          return { action: 'decline' };
        },
      },
    });
    const session = await within(counting.connect(peer.connection), 10_000, 'connect');
    try {
      await assert.rejects(
        within(session.callTool('slow', {}), 10_000, 'callTool'),
        /a task whose "inputRequests" is not an object of input requests, as an input_required task needs \(inputRequests\.who\.params\.message must be a string\)/,
      );
      assert.equal(asked, 0);
      assert.equal(sent(peer, 'tasks/update').length, 0);
    } finally {
      await session.close();
    }
  });

  test('without the tasks option nothing is declared, and a task answer is invalid', async () => {
    const peer = modernPeer({ resultType: 'task', ...modernTask('working') }, []);
    const session = await within(client({ tasks: false }).connect(peer.connection), 10_000, 'connect');
    try {
      await assert.rejects(within(session.callTool('slow', {}), 10_000, 'callTool'), /resultType "task"/);
      const caps = sent(peer, 'tools/call')[0].params._meta['io.modelcontextprotocol/clientCapabilities'];
      assert.equal(caps.extensions, undefined);
      await assert.rejects(session.tasks.get('t-1'), /Tasks are off/);
    } finally {
      await session.close();
    }
  });

  test('the explicit API: start, get, update, cancel; list has no place in the extension', async () => {
    const peer = modernPeer({ resultType: 'task', ...modernTask('working') }, [
      modernTask('input_required', { inputRequests: { who: ELICIT } }),
    ]);
    const session = await within(client().connect(peer.connection), 10_000, 'connect');
    try {
      const start = await session.tasks.start('slow', {});
      assert.ok('task' in start);
      assert.equal(start.task.status, 'working');
      const task = await session.tasks.get(start.task.taskId);
      assert.deepEqual(task.inputRequests, { who: ELICIT });
      await session.tasks.update(task.taskId, { who: { action: 'decline' } });
      await session.tasks.cancel(task.taskId);
      assert.deepEqual(sent(peer, 'tasks/update')[0].params.inputResponses, { who: { action: 'decline' } });
      assert.equal(sent(peer, 'tasks/cancel').length, 1);
      await assert.rejects(session.tasks.list(), /no tasks\/list/);
    } finally {
      await session.close();
    }
  });
});

describe('tasks, polling time (a manual clock)', () => {
  /** Lets the messages in flight on the memory pair arrive. */
  const settle = async () => {
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  test("the server's pollIntervalMs, within the client's bounds (default 100 ms to 30 s)", async () => {
    const clock = new ManualClock();
    const peer = modernPeer({ resultType: 'task', ...modernTask('working', { pollIntervalMs: 5 }) }, [
      modernTask('working', { pollIntervalMs: 3_600_000 }),
      modernTask('completed', { result: done('ok') }),
    ]);
    const session = await within(
      client({ clock, requestTimeoutMs: 1e9, tasks: true }).connect(peer.connection),
      10_000,
      'connect',
    );
    try {
      const call = session.callTool('slow', {});
      await until(() => sent(peer, 'tools/call').length === 1, 5000, 'the call');
      await settle();
      clock.advance(99);
      await settle();
      assert.equal(sent(peer, 'tasks/get').length, 0, '5 ms asked, 100 ms kept');
      clock.advance(1);
      await until(() => sent(peer, 'tasks/get').length === 1, 5000, 'the first poll');
      await settle();
      clock.advance(29_999);
      await settle();
      assert.equal(sent(peer, 'tasks/get').length, 1, 'an hour asked, 30 s kept');
      clock.advance(1);
      assert.deepEqual(await within(call, 5000, 'callTool'), done('ok'));
    } finally {
      await session.close();
    }
  });

  test('maxTotalTimeoutMs bounds the whole call: past it the task is cancelled and the call rejects', async () => {
    const clock = new ManualClock();
    const peer = modernPeer({ resultType: 'task', ...modernTask('working', { pollIntervalMs: 100 }) }, [
      modernTask('working', { pollIntervalMs: 100 }),
    ]);
    const session = await within(
      client({ clock, requestTimeoutMs: 1e9, tasks: true }).connect(peer.connection),
      10_000,
      'connect',
    );
    try {
      const call = session.callTool('slow', {}, { maxTotalTimeoutMs: 250 });
      const failed = assert.rejects(
        call,
        (err) => err instanceof RequestTimeoutError && err.limit === 'maxTotalTimeoutMs',
      );
      for (let polls = 1; polls <= 2; polls++) {
        await settle();
        clock.advance(100);
        await until(() => sent(peer, 'tasks/get').length === polls, 5000, `poll ${polls}`);
      }
      await settle();
      clock.advance(50);
      await within(failed, 5000, 'the rejection');
      assert.deepEqual(
        sent(peer, 'tasks/cancel').map((m) => m.params.taskId),
        ['t-1'],
      );
    } finally {
      await session.close();
    }
  });
});

describe('tasks, legacy era (2025-11-25 experimental)', () => {
  const legacyClient = () => client({ era: 'legacy' });

  test('a tasks capability that is a list is no declaration: no task request is sent', async () => {
    const peer = legacyPeer(['completed'], { caps: [] as unknown as Record<string, unknown> });
    const session = await within(legacyClient().connect(peer.connection), 10_000, 'connect');
    try {
      await assert.rejects(session.tasks.get('t-1'), /did not declare the tasks capability/);
      assert.equal(sent(peer, 'tasks/get').length, 0);
    } finally {
      await session.close();
    }
  });

  test('initialize declares tasks; a tool that allows one is called with `task`, followed through tasks/result from the start', async () => {
    const peer = legacyPeer(['completed']);
    const session = await within(legacyClient().connect(peer.connection), 10_000, 'connect');
    try {
      const init = sent(peer, 'initialize')[0];
      assert.deepEqual(init.params.capabilities.tasks, {});
      assert.equal(init.params.capabilities.extensions, undefined);
      const statuses: string[] = [];
      const progress: number[] = [];
      const out = await within(
        session.callTool(
          'slow',
          {},
          {
            ontask: (t) => statuses.push(t.status),
            onprogress: (p) => progress.push(p.progress),
          },
        ),
        10_000,
        'callTool',
      );
      assert.deepEqual(out, done('Hello from a 2025 task'));
      // Waiting on tasks/result, the client need not poll (2025-11-25, getting tasks): one tasks/get, after the
      // result, tells ontask the final status.
      assert.deepEqual(statuses, ['working', 'completed']);
      const order = peer.seen.map((m) => m.method).filter((m) => m === 'tasks/result' || m === 'tasks/get');
      assert.deepEqual(order, ['tasks/result', 'tasks/get']);
      assert.equal(sent(peer, 'tools/call')[0].params.task !== undefined, true);
      assert.ok(
        progress.length > 0 && progress[0] === 1,
        'the task progress under the call token reaches onprogress',
      );
      const answer = peer.seen.find((m) => m.id === 'ask-1' && m.method === undefined);
      assert.deepEqual(answer.result, { action: 'accept', content: { name: 'Ada for Name?' } });
      assert.deepEqual(await session.callTool('quick', {}), done('at once'));
      assert.equal(sent(peer, 'tools/call')[1].params.task, undefined, 'a tool without taskSupport: no task');
      assert.deepEqual(
        (await session.tasks.list()).tasks.map((t) => [t.taskId, t.ttlMs, t.pollIntervalMs]),
        [['L-1', 60_000, 1]],
      );
      await assert.rejects(session.tasks.update('L-1', {}), /tasks\/update belongs to the Tasks extension/);
    } finally {
      await session.close();
    }
  });

  test('abort cancels when the server declared tasks.cancel', async () => {
    const peer = legacyPeer(['working']);
    const session = await within(legacyClient().connect(peer.connection), 10_000, 'connect');
    try {
      const abort = new AbortController();
      const call = session.callTool('slow', {}, { signal: abort.signal, ontask: () => abort.abort() });
      await assert.rejects(within(call, 10_000, 'callTool'), RequestCancelledError);
      assert.deepEqual(
        sent(peer, 'tasks/cancel').map((m) => m.params.taskId),
        ['L-1'],
      );
    } finally {
      await session.close();
    }
  });
});
