// `isolate`: each 2025 session has a child process of its own, ended with the session; 2026 requests go to the
// shared child; and the bound on isolated sessions.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, connectUrl } from '../../src/client/index.js';
import { McpError } from '../../src/jsonrpc/errors.js';
import { alive } from '../../src/test-support/process-alive.js';
import { bridgeChild, serveBridge } from '../../src/test-support/served-bridge.js';
import { until, within } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

const MS = 20_000;
describe('bridge with isolate: a child per 2025 session', () => {
  let close: () => Promise<void>;
  let url: string;

  before(async () => {
    ({ url, close } = await serveBridge({
      upstream: bridgeChild('--legacy'),
      isolate: true,
      maxIsolated: 2,
      stderr: () => {},
      report: () => {},
    }));
  });

  after(() => close?.());

  const connect = (era: 'legacy' | 'modern') =>
    within(connectUrl(new Client({ name: 'c', version: '1' }, { era }), url), MS, 'connect');
  const pidOf = async (session: Awaited<ReturnType<typeof connect>>) =>
    Number(toolText(await session.callTool('pid')));

  test('two 2025 sessions are served by two processes, each ended with its session; 2026 requests share one', async () => {
    const [a, b, modern] = await Promise.all([connect('legacy'), connect('legacy'), connect('modern')]);
    const pidA = await pidOf(a);
    const pidB = await pidOf(b);
    const pidModern = await pidOf(modern);
    assert.notEqual(pidA, pidB);
    assert.notEqual(pidA, pidModern);
    assert.notEqual(pidB, pidModern);
    assert.equal(await pidOf(a), pidA, 'a session keeps its process');
    await a.close(); // DELETE ends the session, and with it its process
    await until(() => !alive(pidA), MS, `process ${pidA} of the deleted session to exit`);
    assert.ok(alive(pidB));
    assert.equal(await pidOf(modern), pidModern);
    await Promise.all([b.close(), modern.close()]);
    await until(() => !alive(pidB), MS, `process ${pidB} to exit`);
  });

  test('past maxIsolated sessions with a process, a new one is refused saying why', async () => {
    const sessions = await Promise.all([connect('legacy'), connect('legacy'), connect('legacy')]);
    try {
      await pidOf(sessions[0]!);
      await pidOf(sessions[1]!);
      await assert.rejects(sessions[2]!.callTool('pid'), (err: Error) => {
        assert.ok(err instanceof McpError);
        assert.match(err.message, /already runs 2 server processes, one per session/);
        return true;
      });
    } finally {
      await Promise.all(sessions.map((s) => s.close()));
    }
  });
});
