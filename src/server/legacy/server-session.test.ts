import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../../jsonrpc/errors.js';
import { CapabilityError } from '../../peer/errors.js';
import { LATEST_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSIONS } from '../../protocol/versions.js';
import { FakeClient } from '../../test-support/fake-client.js';
import { Server } from '../server.js';

function newServer(options = {}) {
  return new Server(
    { name: 'test-server', version: '1.2.3', title: 'Test' },
    { instructions: 'Be nice', ...options },
  );
}

describe('initialize', () => {
  for (const version of LEGACY_PROTOCOL_VERSIONS) {
    test(`answers a client asking for ${version} with ${version}`, async () => {
      const client = new FakeClient(newServer());
      const result = await client.initialize({}, version);
      assert.equal(result.protocolVersion, version);
      assert.equal(client.session.protocolVersion, version);
    });
  }

  test('answers an unsupported version with the latest', async () => {
    const client = new FakeClient(newServer());
    const result = await client.initialize({}, '1999-01-01');
    assert.equal(result.protocolVersion, LATEST_PROTOCOL_VERSION);
  });

  test('returns server info, instructions and capabilities, and records the client', async () => {
    const server = newServer();
    server.tool({ name: 't' }, () => ({ content: [] }));
    const client = new FakeClient(server);
    const result = await client.initialize({ roots: { listChanged: true } });
    assert.deepEqual(result.serverInfo, { name: 'test-server', version: '1.2.3', title: 'Test' });
    assert.equal(result.instructions, 'Be nice');
    assert.deepEqual(result.capabilities, { logging: {}, tools: { listChanged: true } });
    assert.deepEqual(client.session.clientInfo, { name: 'fake-client', version: '1.0.0' });
    assert.deepEqual(client.session.clientCapabilities, { roots: { listChanged: true } });
  });

  test('a second initialize is refused with -32600', async () => {
    const client = new FakeClient(newServer());
    await client.initialize();
    const again = await client.call('initialize', {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'x', version: '1' },
    });
    assert.equal(again.error.code, ErrorCode.InvalidRequest);
  });

  test('refuses requests other than ping before initialize', async () => {
    const client = new FakeClient(newServer());
    const early = await client.call('tools/list');
    assert.deepEqual(early.error, {
      code: ErrorCode.InvalidRequest,
      message: 'Server not initialized: send "initialize" first',
    });
    const ping = await client.call('ping');
    assert.deepEqual(ping.result, {});
  });

  test('notifications/initialized sets `initialized` and fires oninitialized once', async () => {
    const server = newServer();
    let fired = 0;
    server.onsession = (session) => {
      session.oninitialized = () => fired++;
    };
    const client = new FakeClient(server);
    await client.initialize();
    client.notify('notifications/initialized');
    assert.equal(client.session.initialized, true);
    assert.equal(fired, 1);
  });

  test('an unknown method after initialize is -32601', async () => {
    const client = new FakeClient(newServer());
    await client.initialize();
    const response = await client.call('nope/nothing');
    assert.equal(response.error.code, ErrorCode.MethodNotFound);
  });

  test('a preinitialized session (stateless transports) serves requests without initialize', async () => {
    const server = newServer();
    server.tool({ name: 'echo' }, () => ({ content: [{ type: 'text', text: 'hi' }] }));
    const client = new FakeClient(server, { preinitialized: { protocolVersion: '2025-06-18' } });
    const result = await client.result('tools/call', { name: 'echo' });
    assert.deepEqual(result.content, [{ type: 'text', text: 'hi' }]);
    assert.equal(client.session.protocolVersion, '2025-06-18');
  });
});

describe('sessions', () => {
  test('are tracked in server.sessions until their connection closes', async () => {
    const server = newServer();
    const a = new FakeClient(server);
    const b = new FakeClient(server);
    assert.deepEqual([...server.sessions], [a.session, b.session]);
    await a.connection.close();
    assert.deepEqual([...server.sessions], [b.session]);
    await server.close();
    assert.equal(server.sessions.size, 0);
    assert.equal(b.session.isClosed, true);
  });

  test('onrootschanged fires on notifications/roots/list_changed', async () => {
    const client = new FakeClient(newServer());
    await client.initialize({ roots: { listChanged: true } });
    let fired = 0;
    client.session.onrootschanged = () => fired++;
    client.notify('notifications/roots/list_changed');
    assert.equal(fired, 1);
  });
});

describe('calls to the client', () => {
  test('listRoots, createMessage and elicit are refused, sending nothing, without the capability', async () => {
    const client = new FakeClient(newServer());
    await client.initialize({});
    const before = client.sent.length;
    await assert.rejects(client.session.listRoots(), CapabilityError);
    await assert.rejects(
      client.session.createMessage({ messages: [], maxTokens: 10 }),
      (err: Error) => err instanceof CapabilityError && /sampling/.test(err.message),
    );
    await assert.rejects(
      client.session.elicit({ message: 'name?', requestedSchema: { type: 'object', properties: {} } }),
      (err: Error) => err instanceof CapabilityError && /elicitation/.test(err.message),
    );
    assert.equal(client.sent.length, before);
  });

  test('sampling with tools needs sampling.tools', async () => {
    const client = new FakeClient(newServer());
    await client.initialize({ sampling: {} });
    const params = {
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'hi' } }],
      maxTokens: 10,
      tools: [{ name: 'calc', inputSchema: { type: 'object' as const } }],
    };
    await assert.rejects(client.session.createMessage(params), /sampling\.tools/);
    await assert.rejects(
      client.session.createMessage({ ...params, tools: undefined, toolChoice: { mode: 'auto' } }),
      /sampling\.tools/,
    );

    const capable = new FakeClient(newServer());
    await capable.initialize({ sampling: { tools: {} } });
    const pending = capable.session.createMessage(params);
    const request = await capable.answer('sampling/createMessage', {
      role: 'assistant',
      content: { type: 'text', text: 'ok' },
      model: 'm',
    });
    assert.deepEqual(request.message.params.tools, params.tools);
    assert.equal((await pending).model, 'm');
  });

  test('elicitation modes follow the declared capability', async () => {
    const form = { message: 'name?', requestedSchema: { type: 'object' as const, properties: {} } };
    const url = { mode: 'url' as const, message: 'go', elicitationId: 'e1', url: 'https://example.com/x' };

    const bare = new FakeClient(newServer());
    await bare.initialize({ elicitation: {} });
    await assert.rejects(bare.session.elicit(url), /elicitation\.url/);
    const pending = bare.session.elicit(form);
    await bare.answer('elicitation/create', { action: 'accept', content: {} });
    assert.equal((await pending).action, 'accept');

    const urlOnly = new FakeClient(newServer());
    await urlOnly.initialize({ elicitation: { url: {} } });
    await assert.rejects(urlOnly.session.elicit(form), /form-mode/);
    const ok = urlOnly.session.elicit(url);
    await urlOnly.answer('elicitation/create', { action: 'decline' });
    assert.equal((await ok).action, 'decline');
  });

  test('listRoots with the roots capability asks and returns the roots', async () => {
    const client = new FakeClient(newServer());
    await client.initialize({ roots: {} });
    const pending = client.session.listRoots();
    await client.answer('roots/list', { roots: [{ uri: 'file:///a' }] });
    assert.deepEqual((await pending).roots, [{ uri: 'file:///a' }]);
  });
});

describe('logging', () => {
  test('sends every level until the client sets one, then only that level and above', async () => {
    const client = new FakeClient(newServer());
    await client.initialize();
    await client.session.log('debug', 'd0');
    assert.deepEqual(await client.result('logging/setLevel', { level: 'warning' }), {});
    await client.session.log('info', 'i1');
    await client.session.log('warning', 'w1', 'db');
    await client.session.log('emergency', { x: 1 });
    assert.deepEqual(
      client.notifications('notifications/message').map((s) => s.message.params),
      [
        { level: 'debug', data: 'd0' },
        { level: 'warning', logger: 'db', data: 'w1' },
        { level: 'emergency', data: { x: 1 } },
      ],
    );
  });

  test('Server.log reaches every initialized session whose level admits it, and says how many', async () => {
    const server = newServer();
    const chatty = new FakeClient(server);
    await chatty.initialize();
    const quiet = new FakeClient(server);
    await quiet.initialize();
    await quiet.result('logging/setLevel', { level: 'error' });
    const fresh = new FakeClient(server); // connected, not initialized: hears nothing
    assert.equal(server.log('warning', { n: 1 }, 'app'), 1);
    assert.equal(server.log('critical', 'down'), 2);
    const seen = (c: FakeClient) => c.notifications('notifications/message').map((s) => s.message.params);
    assert.deepEqual(seen(chatty), [
      { level: 'warning', logger: 'app', data: { n: 1 } },
      { level: 'critical', data: 'down' },
    ]);
    assert.deepEqual(seen(quiet), [{ level: 'critical', data: 'down' }]);
    assert.deepEqual(seen(fresh), []);
    // Unrelated to any request: it goes to each session's standalone stream.
    assert.equal(chatty.notifications('notifications/message')[0].related, undefined);
    assert.equal(newServer({ logging: false }).log('error', 'x'), 0);
  });

  test('with logging disabled: no capability, no messages, setLevel is -32601', async () => {
    const client = new FakeClient(newServer({ logging: false }));
    const init = await client.initialize();
    assert.equal(init.capabilities.logging, undefined);
    await client.session.log('error', 'x');
    assert.equal(client.notifications('notifications/message').length, 0);
    const response = await client.call('logging/setLevel', { level: 'info' });
    assert.equal(response.error.code, ErrorCode.MethodNotFound);
  });

  test('a log or a client call made from inside a tool travels related to the tool call', async () => {
    const server = newServer();
    server.tool({ name: 'work' }, async (_args, ctx) => {
      await ctx.log('info', 'working');
      const roots = await ctx.listRoots();
      return { content: [{ type: 'text', text: String(roots.roots.length) }] };
    });
    const client = new FakeClient(server);
    await client.initialize({ roots: {} });
    const call = client.call('tools/call', { name: 'work' }, 'call-7');
    const rootsRequest = await client.answer('roots/list', { roots: [] });
    const response = await call;
    assert.deepEqual(response.result.content, [{ type: 'text', text: '0' }]);
    const log = client.notifications('notifications/message')[0];
    assert.deepEqual(log.message.params, { level: 'info', data: 'working' });
    assert.equal(log.related, 'call-7');
    assert.equal(rootsRequest.related, 'call-7');
    const sentResponse = client.sent.find((s) => s.message.id === 'call-7' && 'result' in s.message);
    assert.equal(sentResponse?.related, 'call-7');
  });

  test('ctx.elicit inside a tool honours the client capability: the refusal is a tool error', async () => {
    const server = newServer();
    server.tool({ name: 'ask' }, async (_args, ctx) => {
      await ctx.elicit({ message: 'name?', requestedSchema: { type: 'object', properties: {} } });
      return { content: [] };
    });
    const client = new FakeClient(server);
    await client.initialize({});
    const before = client.sent.length;
    const response = await client.call('tools/call', { name: 'ask' });
    assert.equal(response.result.isError, true);
    assert.match(response.result.content[0].text, /does not support elicitation/);
    assert.equal(client.sent.length, before + 1, 'only the response was sent');
  });
});
