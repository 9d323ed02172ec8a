import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { McpError } from '../../jsonrpc/errors.js';
import { createMemoryPair } from '../../peer/memory.js';
import { Server } from '../../server/server.js';
import { ModernStdio } from '../../server/stdio/stdio-modern.js';
import { memoryPeer } from '../../test-support/memory-peer.js';
import { discoverResult, error, result } from '../../test-support/scripted-http.js';
import { within } from '../../test-support/time-limit.js';
import { Client } from '../client.js';

/*
 * The probe over a connection with no HTTP status (stdio, memory; spec 2026-07-28 §negotiation): discover
 * first, a ping behind it, and silence counted from the ping's answer (probeTimeoutMs); the rule reads the
 * answer, not one error code, and only a modern refusal stops it before initialize.
 */

const client = new Client({ name: 'probe', version: '1' }, { requestTimeoutMs: 5000, probeTimeoutMs: 300 });
const INIT = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  serverInfo: { name: 'legacy-peer', version: '1' },
};

/** A peer that answers discover with `discover`, ping (as 2025 servers do before initialize) and initialize. */
function legacyPeer(discover: (m: any) => Array<Record<string, unknown>> | undefined) {
  return memoryPeer((m) => {
    if (m.method === 'server/discover') return discover(m);
    if (m.method === 'ping') return [result(m.id, {})];
    if (m.method === 'initialize') return [result(m.id, INIT)];
    return undefined;
  });
}

const requestsSeen = (peer: { seen: any[] }) => peer.seen.filter((m) => 'id' in m).map((m) => m.method);

describe('probe over a connection', () => {
  const legacyAnswers: Array<[string, (m: any) => Array<Record<string, unknown>> | undefined]> = [
    ['-32601', (m) => [error(m.id, -32601, 'Method not found')]],
    ['-32600 (not initialized)', (m) => [error(m.id, -32600, 'Not initialized')]],
    ['-32000 (a server-defined code)', (m) => [error(m.id, -32000, 'Bad Request')]],
    ['-32602', (m) => [error(m.id, -32602, 'Invalid params')]],
    ['a result that is no discover result', (m) => [result(m.id, {})]],
    [
      'a discover result whose capabilities are a list',
      (m) => [result(m.id, { supportedVersions: ['2026-07-28'], capabilities: [] })],
    ],
    [
      '-32022 listing only legacy versions',
      (m) => [error(m.id, -32022, 'no', { supported: ['2025-06-18'] })],
    ],
    ['no answer to discover, within probeTimeoutMs of the answer to ping', () => undefined],
  ];
  for (const [name, answer] of legacyAnswers) {
    test(`${name}: legacy, then initialize`, async () => {
      const peer = legacyPeer(answer);
      const session = await within(client.connect(peer.connection), 10_000, 'connect');
      try {
        assert.equal(session.era, 'legacy');
        assert.equal(session.serverInfo.name, 'legacy-peer');
        assert.deepEqual(requestsSeen(peer), ['server/discover', 'ping', 'initialize']);
      } finally {
        await session.close();
      }
    });
  }

  for (const code of [-32020, -32021]) {
    test(`${code}: a modern refusal, and no initialize`, async () => {
      const peer = legacyPeer((m) => [error(m.id, code, 'refused')]);
      await assert.rejects(
        within(client.connect(peer.connection), 10_000, 'connect'),
        (err: McpError) => err instanceof McpError && err.code === code,
      );
      assert.ok(!peer.seen.some((m) => m.method === 'initialize'));
    });
  }

  test('-32022 naming our version: asked again once, then modern', async () => {
    let n = 0;
    const peer = legacyPeer((m) =>
      n++ === 0
        ? [error(m.id, -32022, 'no', { supported: ['2026-07-28'] })]
        : [result(m.id, discoverResult())],
    );
    const session = await within(client.connect(peer.connection), 10_000, 'connect');
    try {
      assert.equal(session.era, 'modern');
      assert.equal(peer.seen.filter((m) => m.method === 'server/discover').length, 2);
    } finally {
      await session.close();
    }
  });

  test("era 'modern' does not fall back: the error says what discover got", async () => {
    const modernOnly = new Client({ name: 'p', version: '1' }, { era: 'modern', probeTimeoutMs: 300 });
    const peer = legacyPeer((m) => [error(m.id, -32601, 'Method not found')]);
    await assert.rejects(
      within(modernOnly.connect(peer.connection), 10_000, 'connect'),
      /does not speak 2026-07-28: to server\/discover it answered -32601 Method not found/,
    );
  });

  test("era 'modern' waits for a discover answered after probeTimeoutMs (a server slow to start)", async () => {
    const modernOnly = new Client({ name: 'p', version: '1' }, { era: 'modern', probeTimeoutMs: 50 });
    const peer = legacyPeer(() => undefined);
    const connecting = within(modernOnly.connect(peer.connection), 10_000, 'connect');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const discover = peer.seen.find((m) => m.method === 'server/discover');
    await peer.send(result(discover.id, discoverResult()));
    const session = await connecting;
    try {
      assert.equal(session.era, 'modern');
    } finally {
      await session.close();
    }
  });

  test('a server slow to start (silent for longer than probeTimeoutMs) is not taken for a legacy one', async () => {
    const peer = memoryPeer(() => undefined);
    const connecting = within(client.connect(peer.connection), 10_000, 'connect');
    // Six times probeTimeoutMs of silence, then the server starts: it reads what waited, in order.
    await new Promise((resolve) => setTimeout(resolve, 1800));
    assert.deepEqual(requestsSeen(peer), ['server/discover', 'ping']);
    const [discover, ping] = peer.seen;
    await peer.send(result(discover.id, discoverResult()));
    await peer.send(error(ping.id, -32601, 'Method not found'));
    const session = await connecting;
    try {
      assert.equal(session.era, 'modern');
      assert.ok(!peer.seen.some((m) => m.method === 'initialize'));
    } finally {
      await session.close();
    }
  });

  test('a server that answers neither discover nor ping is taken for a legacy one at the request timeout', async () => {
    const quick = new Client({ name: 'probe', version: '1' }, { requestTimeoutMs: 600, probeTimeoutMs: 50 });
    const peer = memoryPeer((m) => (m.method === 'initialize' ? [result(m.id, INIT)] : undefined));
    const session = await within(quick.connect(peer.connection), 10_000, 'connect');
    try {
      assert.equal(session.era, 'legacy');
      assert.deepEqual(requestsSeen(peer), ['server/discover', 'ping', 'initialize']);
    } finally {
      await session.close();
    }
  });

  test('our own Server, legacy session (no era choice on this connection): legacy', async () => {
    const server = new Server({ name: 'ours', version: '1' });
    const [serverEnd, clientEnd] = createMemoryPair();
    server.connect(serverEnd);
    const session = await within(client.connect(clientEnd), 10_000, 'connect');
    try {
      assert.equal(session.era, 'legacy');
      assert.equal(session.serverInfo.name, 'ours');
    } finally {
      await session.close();
      await server.close();
    }
  });

  test('our own Server in the modern era: modern, with its info from discover', async () => {
    const server = new Server({ name: 'ours', version: '2' });
    const [serverEnd, clientEnd] = createMemoryPair();
    serverEnd.start(new ModernStdio(server, serverEnd, () => {}));
    const session = await within(client.connect(clientEnd), 10_000, 'connect');
    try {
      assert.equal(session.era, 'modern');
      assert.deepEqual(session.serverInfo, { name: 'ours', version: '2' });
      await session.ping();
    } finally {
      await session.close();
      await server.close();
    }
  });
});
