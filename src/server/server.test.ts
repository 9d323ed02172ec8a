import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonRpcMessage } from '../jsonrpc/types.js';
import { createMemoryPair } from '../peer/memory.js';
import { FakeClient, settle } from '../test-support/fake-client.js';
import { recordingReceiver } from '../test-support/recording-receiver.js';
import { Server } from './server.js';

const noContent = () => ({ content: [] });

describe('capabilities', () => {
  test('follow what is registered, and are one shared object between changes', async () => {
    const server = new Server({ name: 's', version: '1' });
    assert.deepEqual(server.capabilities, { logging: {} });
    server.tool({ name: 't' }, noContent);
    server.prompt({ name: 'p', arguments: [{ name: 'a', complete: () => [] }] }, () => ({ messages: [] }));
    server.resource({ uri: 'r://1', name: 'r' }, (uri) => ({ contents: [{ uri, text: '' }] }));
    const expected = {
      logging: {},
      completions: {},
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      tools: { listChanged: true },
    };
    assert.deepEqual(server.capabilities, expected);
    const a = new FakeClient(server);
    const b = new FakeClient(server);
    await a.initialize();
    await b.initialize();
    assert.equal(
      a.session.serverCapabilities,
      b.session.serverCapabilities,
      'computed once, not per initialize',
    );
    assert.equal(a.session.serverCapabilities, server.capabilities);
  });

  test('options.capabilities are declared on top of the derived ones', () => {
    const server = new Server(
      { name: 's', version: '1' },
      { logging: false, capabilities: { experimental: { x: {} }, tools: { listChanged: true } } },
    );
    assert.deepEqual(server.capabilities, { experimental: { x: {} }, tools: { listChanged: true } });
  });

  test('rejects an invalid page size or server info', () => {
    assert.throws(() => new Server({ name: 's', version: '1' }, { pageSize: 0 }), /pageSize/);
    assert.throws(() => new Server({ name: 's' } as never), /version/);
  });
});

describe('list_changed', () => {
  test('goes only to sessions whose announced capabilities include that list', async () => {
    const server = new Server({ name: 's', version: '1' });
    const early = new FakeClient(server);
    await early.initialize();
    server.tool({ name: 't' }, noContent);
    const late = new FakeClient(server);
    await late.initialize();
    await settle();
    server.tool({ name: 'u' }, noContent);
    await settle();
    assert.equal(
      early.notifications('notifications/tools/list_changed').length,
      0,
      'never told it has tools',
    );
    assert.equal(late.notifications('notifications/tools/list_changed').length, 1);
  });

  test('changes to different kinds in one tick send one notification per kind', async () => {
    const server = new Server({ name: 's', version: '1' });
    const tool = server.tool({ name: 't' }, noContent);
    const prompt = server.prompt({ name: 'p' }, () => ({ messages: [] }));
    const client = new FakeClient(server);
    await client.initialize();
    tool.disable();
    prompt.disable();
    tool.enable();
    prompt.enable();
    await settle();
    assert.deepEqual(
      client.notifications().map((s) => s.message.method),
      ['notifications/tools/list_changed', 'notifications/prompts/list_changed'],
    );
  });
});

describe('over the memory transport', () => {
  test('a client end initializes, lists and calls a tool', async () => {
    const server = new Server({ name: 's', version: '1' });
    server.tool(
      { name: 'hello', inputSchema: { type: 'object', properties: { who: { type: 'string' } } } },
      (args) => ({
        content: [{ type: 'text', text: `hello ${args.who}` }],
      }),
    );
    const [serverEnd, clientEnd] = createMemoryPair();
    server.connect(serverEnd);
    const peer = recordingReceiver();
    clientEnd.start(peer);
    const send = (m: Record<string, unknown>) => clientEnd.send({ jsonrpc: '2.0', ...m } as JsonRpcMessage);
    await send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    });
    await peer.until(() => peer.messages.length === 1);
    await send({ method: 'notifications/initialized' });
    await send({ id: 2, method: 'tools/call', params: { name: 'hello', arguments: { who: 'you' } } });
    await peer.until(() => peer.messages.length === 2);
    assert.deepEqual(peer.messages[1], {
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: 'hello you' }] },
    });
    await server.close();
    assert.equal(server.sessions.size, 0);
  });
});
