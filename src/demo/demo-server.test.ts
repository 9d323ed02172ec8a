import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '../client/client.js';
import type { ClientSession } from '../client/client-session.js';
import { createMemoryPair } from '../peer/memory.js';
import { until } from '../test-support/time-limit.js';
import { createDemoServer } from './demo-server.js';

/** `count` clients of one demo server, each over its own in-memory connection. */
async function clients(count: number): Promise<ClientSession[]> {
  const server = createDemoServer();
  const sessions: ClientSession[] = [];
  for (let i = 0; i < count; i++) {
    const [clientEnd, serverEnd] = createMemoryPair();
    server.connect(serverEnd);
    sessions.push(await new Client({ name: `demo-test-${i}`, version: '1' }).connect(clientEnd));
  }
  return sessions;
}

const text = (result: { content: ReadonlyArray<{ type: string; text?: string }> }) =>
  result.content.map((c) => c.text ?? `[${c.type}]`).join('\n');

const toolNames = async (session: ClientSession) => (await session.listTools()).tools.map((t) => t.name);

describe('demo server: the tools that show list changes and resource updates', () => {
  test('toggle_tool adds bonus, then removes it; every client is told the tool list changed', async () => {
    const [caller, watcher] = (await clients(2)) as [ClientSession, ClientSession];
    let changes = 0;
    watcher.on('toolsChanged', () => {
      changes++;
    });
    assert.ok(!(await toolNames(watcher)).includes('bonus'));

    assert.equal(text(await caller.callTool('toggle_tool')), 'Added the tool bonus');
    await until(() => changes === 1, 5000, 'the first list change');
    assert.ok((await toolNames(watcher)).includes('bonus'));
    assert.equal(text(await watcher.callTool('bonus')), 'You found the bonus tool');

    assert.equal(text(await caller.callTool('toggle_tool')), 'Removed the tool bonus');
    await until(() => changes === 2, 5000, 'the second list change');
    assert.ok(!(await toolNames(watcher)).includes('bonus'));
    const gone = await watcher.callTool('bonus').then(
      () => undefined,
      (err: Error) => err,
    );
    assert.match(String(gone?.message), /bonus/);
  });

  test('touch_readme sends resources/updated for demo://readme to its subscribers only', async () => {
    const [caller, subscriber, bystander] = (await clients(3)) as [
      ClientSession,
      ClientSession,
      ClientSession,
    ];
    const updated: string[] = [];
    const unasked: string[] = [];
    subscriber.on('resourceUpdated', (p) => updated.push(p.uri));
    bystander.on('resourceUpdated', (p) => unasked.push(p.uri));
    await subscriber.subscribeResource('demo://readme');

    assert.equal(
      text(await caller.callTool('touch_readme')),
      'Sent an update of demo://readme to its subscribers',
    );
    await until(() => updated.length === 1, 5000, 'the readme update');
    // A turn more, in which an update wrongly sent to the bystander would have arrived too.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(updated, ['demo://readme']);
    assert.deepEqual(unasked, []);
  });
});
