import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { describe, test } from 'node:test';
import { TASKS_EXTENSION } from '../protocol/tasks.js';
import { ManualClock } from '../test-support/manual-clock.js';
import {
  cut,
  error,
  type Hit,
  modern,
  openSse,
  result,
  scriptedServer,
  sendJson,
  writeEvent,
} from '../test-support/scripted-http.js';
import {
  acknowledge,
  done,
  ELICIT,
  FAST,
  modernPeer,
  modernTask,
  NEVER,
  sent,
  tagged,
  taskClient,
} from '../test-support/task-peers.js';
import { until, within } from '../test-support/time-limit.js';
import { ModernHTTPClientConnection } from './http/modern-http-client-connection.js';
import type { Task } from './task-types.js';

/*
 * A 2026 client follows its tasks on `notifications/tasks` (the Tasks extension, through subscriptions/listen
 * with `taskIds`) and polls only as the fallback: with polls set an hour apart (and a clock that never moves) a
 * task still ends as soon as its end is pushed.
 */

const MS = 10_000;
const statusesOf = (seen: Task[]) => seen.map((t) => t.status);

/**
 * A peer that acknowledges each listen as asked, its n-th tools/call starting task `t-n`, and a session on it
 * that never polls of its own accord; `push` sends a state on the newest listen stream.
 */
async function listening(states: Array<Record<string, unknown>>) {
  const listens: any[] = [];
  const peer = modernPeer(
    (n) => ({ resultType: 'task', ...modernTask('working'), taskId: `t-${n}` }),
    states,
    (m) => {
      listens.push(m);
      return acknowledge(m);
    },
  );
  const session = await within(
    taskClient({ clock: new ManualClock(), tasks: NEVER }).connect(peer.connection),
    MS,
    'connect',
  );
  const push = (task: Record<string, unknown>) =>
    peer.send(tagged(listens.at(-1).id, 'notifications/tasks', task));
  /** Resolves once the client told the peer it closed the listen `m` (notifications/cancelled). */
  const closed = (m: any, label: string) =>
    until(
      () => peer.seen.some((s) => s.method === 'notifications/cancelled' && s.params.requestId === m.id),
      MS,
      label,
    );
  return { peer, session, listens, push, closed };
}

describe('task notifications over a listen stream (2026-07-28)', () => {
  test('a task the stream covers is read once after the ack, then followed on its pushes: input answered, the result', async () => {
    const { peer, session, listens, push, closed } = await listening([modernTask('working', {}, 1)]);
    try {
      const seen: Task[] = [];
      const call = session.callTool('slow', {}, { ontask: (t) => seen.push(t) });
      await until(() => sent(peer, 'tasks/get').length === 1, MS, 'the read after the ack');
      assert.deepEqual(
        listens.map((l) => l.params.notifications),
        [{ taskIds: ['t-1'] }],
      );
      await push(modernTask('input_required', { taskId: 't-1', inputRequests: { who: ELICIT } }, 2));
      await until(() => sent(peer, 'tasks/update').length === 1, MS, 'the answer');
      assert.deepEqual(sent(peer, 'tasks/update')[0].params.inputResponses, {
        who: { action: 'accept', content: { name: 'Ada for Name?' } },
      });
      await push(modernTask('completed', { taskId: 't-1', result: done('pushed') }, 3));
      assert.deepEqual(await within(call, MS, 'callTool'), done('pushed'));
      assert.deepEqual(statusesOf(seen), ['working', 'input_required', 'completed']);
      assert.equal(sent(peer, 'tasks/get').length, 1, 'no poll but the one the ack called for');
      await closed(listens[0], 'the stream closed once nothing is followed');
    } finally {
      await session.close();
    }
  });

  test('a push older than what a poll read is not taken for the current state', async () => {
    const { session, push } = await listening([modernTask('working', { statusMessage: 'half way' }, 5)]);
    try {
      const seen: Task[] = [];
      const call = session.callTool('slow', {}, { ontask: (t) => seen.push(t) });
      await until(() => seen.length === 2, MS, 'the read after the ack');
      await push(modernTask('working', { taskId: 't-1', statusMessage: 'stale' }, 4));
      await push(modernTask('completed', { taskId: 't-1', result: done('ok') }, 6));
      assert.deepEqual(await within(call, MS, 'callTool'), done('ok'));
      assert.deepEqual(
        seen.map((t) => t.statusMessage),
        [undefined, 'half way', undefined],
      );
    } finally {
      await session.close();
    }
  });

  test('tasks followed at once share one stream: a new one names them all, and the old one closes after its ack', async () => {
    const { peer, session, listens, push, closed } = await listening([modernTask('working', {}, 1)]);
    try {
      const first = session.callTool('slow', {});
      await until(() => sent(peer, 'tasks/get').length === 1, MS, 'the first task read');
      const second = session.callTool('slow', {});
      await until(() => sent(peer, 'tasks/get').length === 2, MS, 'the second task read');
      assert.deepEqual(
        listens.map((l) => l.params.notifications.taskIds),
        [['t-1'], ['t-1', 't-2']],
      );
      await closed(listens[0], 'the old stream closed');
      await push(modernTask('completed', { taskId: 't-2', result: done('2') }, 2));
      await push(modernTask('completed', { taskId: 't-1', result: done('1') }, 2));
      assert.deepEqual(await within(Promise.all([first, second]), MS, 'both calls'), [done('1'), done('2')]);
      assert.equal(sent(peer, 'tasks/get').length, 2, 'one read per task, when its stream was acknowledged');
    } finally {
      await session.close();
    }
  });

  test('a server without listen is polled, and not asked to listen again by the session', async () => {
    const peer = modernPeer({ resultType: 'task', ...modernTask('working') }, [
      modernTask('completed', { result: done('polled') }, 1),
    ]);
    const session = await within(taskClient().connect(peer.connection), MS, 'connect');
    try {
      for (let i = 0; i < 2; i++) {
        assert.deepEqual(await within(session.callTool('slow', {}), MS, 'callTool'), done('polled'));
      }
      assert.equal(sent(peer, 'subscriptions/listen').length, 1);
    } finally {
      await session.close();
    }
  });

  test('an ack that honours no task ids: the stream is closed, and the task polled', async () => {
    const peer = modernPeer(
      { resultType: 'task', ...modernTask('working') },
      [modernTask('completed', { result: done('polled') }, 1)],
      (m) => acknowledge({ ...m, params: { notifications: {} } }),
    );
    const session = await within(taskClient().connect(peer.connection), MS, 'connect');
    try {
      assert.deepEqual(await within(session.callTool('slow', {}), MS, 'callTool'), done('polled'));
      const [listen] = sent(peer, 'subscriptions/listen');
      await until(
        () =>
          peer.seen.some((m) => m.method === 'notifications/cancelled' && m.params.requestId === listen.id),
        MS,
        'the useless stream closed',
      );
    } finally {
      await session.close();
    }
  });
});

describe('task notifications when the stream breaks (HTTP)', () => {
  /** A modern HTTP server running task t-1; `onListen` answers its n-th listen (from 1). */
  async function taskServer(
    onListen: (n: number, hit: Hit, res: ServerResponse) => void,
    polls: () => unknown,
  ) {
    let n = 0;
    return scriptedServer(
      modern(
        (hit, res) => {
          const m = hit.message;
          switch (m.method) {
            case 'tools/list':
              return sendJson(
                res,
                result(m.id, { tools: [{ name: 'slow', inputSchema: { type: 'object' } }] }),
              );
            case 'tools/call':
              return sendJson(res, result(m.id, { resultType: 'task', ...modernTask('working') }));
            case 'tasks/get':
              return sendJson(res, result(m.id, { resultType: 'complete', ...(polls() as object) }));
            case 'subscriptions/listen':
              return onListen(++n, hit, res);
            default:
              return sendJson(res, error(m.id, -32601, 'no'));
          }
        },
        { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
      ),
    );
  }
  const retry = { initialDelayMs: 10, maxDelayMs: 50, maxAttempts: 2 };

  test('a stream that drops is opened again, and the task read once more for what the gap hid', async () => {
    let reopened: ServerResponse | undefined;
    const server = await taskServer(
      (n, hit, res) => {
        openSse(res, acknowledge(hit.message));
        if (n === 1) setTimeout(() => cut(res), 20);
        else reopened = res;
      },
      () => modernTask('working', {}, 1),
    );
    const client = taskClient({ clock: new ManualClock(), tasks: NEVER, retry });
    const session = await within(client.connect(new ModernHTTPClientConnection(server.url)), MS, 'connect');
    try {
      const call = session.callTool('slow', {});
      await until(
        () => reopened !== undefined && server.posts('tasks/get').length === 2,
        MS,
        'the read after the re-open',
      );
      const [, second] = server.posts('subscriptions/listen');
      writeEvent(
        reopened!,
        tagged(
          second.message.id,
          'notifications/tasks',
          modernTask('completed', { result: done('after') }, 2),
        ),
      );
      assert.deepEqual(await within(call, MS, 'callTool'), done('after'));
    } finally {
      await session.close();
      await server.close();
    }
  });

  test('a stream that cannot be kept: the task is polled at its interval, and ends', async () => {
    let polls = 0;
    const server = await taskServer(
      (_n, hit, res) => {
        openSse(res, acknowledge(hit.message));
        setImmediate(() => cut(res));
      },
      () =>
        ++polls < 5 ? modernTask('working', {}, 1) : modernTask('completed', { result: done('polled') }, 2),
    );
    const session = await within(
      taskClient({ tasks: FAST, retry }).connect(new ModernHTTPClientConnection(server.url)),
      MS,
      'connect',
    );
    try {
      assert.deepEqual(await within(session.callTool('slow', {}), MS, 'callTool'), done('polled'));
      assert.ok(server.posts('subscriptions/listen').length <= 1 + retry.maxAttempts);
    } finally {
      await session.close();
      await server.close();
    }
  });
});

describe('a task call ends with its session (2026-07-28)', () => {
  // Polls an hour apart on a clock that never moves: only the session's close can end the call in time.
  const rejectsClosed = async (call: Promise<unknown>) => {
    const err = await within(
      call.then(
        () => undefined,
        (e: Error) => e,
      ),
      MS,
      'the call to end',
    );
    assert.equal(err?.name, 'ConnectionClosedError');
  };

  test('followed on a listen stream: closing the session ends the call at once', async () => {
    const { session, listens } = await listening([modernTask('working', {}, 1)]);
    const call = session.callTool('slow', {});
    await until(() => listens.length === 1, MS, 'the listen');
    await session.close();
    await rejectsClosed(call);
  });

  test('polled (the server has no listen): closing the session ends the call at once, not at the next poll', async () => {
    const peer = modernPeer({ resultType: 'task', ...modernTask('working') }, [modernTask('working', {}, 1)]);
    const session = await within(
      taskClient({ clock: new ManualClock(), tasks: NEVER }).connect(peer.connection),
      MS,
      'connect',
    );
    const call = session.callTool('slow', {});
    await until(() => sent(peer, 'subscriptions/listen').length === 1, MS, 'the listen it refuses');
    await session.close();
    await rejectsClosed(call);
  });
});
