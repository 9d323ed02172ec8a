import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock } from '../test-support/manual-clock.js';
import { done, legacyPeer, NEVER, sent, taskClient } from '../test-support/task-peers.js';
import { within } from '../test-support/time-limit.js';

/*
 * A 2025-11-25 client waits on tasks/result from the start and hears `notifications/tasks/status` wherever they
 * come: with polls set an hour apart (and a clock that never moves) a task still ends at once, and ontask hears
 * each status the server pushed, without a single tasks/get.
 */

const MS = 10_000;

/** Calls `slow` as a task on `peer`, polls an hour apart: its result, the statuses ontask heard, the tasks/get sent. */
async function follow(peer: ReturnType<typeof legacyPeer>) {
  const session = await within(
    taskClient({ era: 'legacy', clock: new ManualClock(), tasks: NEVER }).connect(peer.connection),
    MS,
    'connect',
  );
  try {
    const statuses: string[] = [];
    const out = await within(
      session.callTool('slow', {}, { ontask: (t) => statuses.push(t.status) }),
      MS,
      'callTool',
    );
    return { out, statuses, polls: sent(peer, 'tasks/get').length };
  } finally {
    await session.close();
  }
}

describe('task status notifications (2025-11-25)', () => {
  test('statuses pushed on the tasks/result stream reach ontask; the result needs no poll', async () => {
    assert.deepEqual(await follow(legacyPeer(['working'], { push: true })), {
      out: done('Hello from a 2025 task'),
      statuses: ['working', 'input_required', 'completed'],
      polls: 0,
    });
  });

  test('a server that pushes nothing: the result still comes by tasks/result, and one poll tells the end', async () => {
    assert.deepEqual(await follow(legacyPeer(['completed'])), {
      out: done('Hello from a 2025 task'),
      statuses: ['working', 'completed'],
      polls: 1,
    });
  });
});
