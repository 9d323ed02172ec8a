// The official SDK's legacy SSEClientTransport and Client against our LegacySSEHandler serving the demo
// server, with the DNS-rebinding policy `mcpwire serve` uses on loopback: a client no one here wrote.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { CreateMessageRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createDemoServer } from '../../src/demo/demo-server.js';
import { defaultLoopbackPolicy } from '../../src/http/guards.js';
import { LegacySSEHandler } from '../../src/server/sse/legacy-sse-handler.js';
import { type LoopbackServer, listenLoopback } from '../../src/test-support/http-loopback.js';
import { firstPrompt, shoutingModel } from '../../src/test-support/sdk-sampling-model.js';
import { within } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

describe('SDK SSEClientTransport + Client ↔ LegacySSEHandler (demo server)', () => {
  let http: LoopbackServer;
  let handler: LegacySSEHandler;
  let client: Client;
  const handlerErrors: Error[] = [];
  const samplingPrompts: string[] = [];

  before(async () => {
    let listener: ReturnType<LegacySSEHandler['node']> = () => {};
    http = await listenLoopback((req, res) => listener(req, res));
    handler = new LegacySSEHandler(createDemoServer(), {
      dnsRebindingProtection: defaultLoopbackPolicy(http.port),
      onerror: (err) => handlerErrors.push(err),
    });
    listener = handler.node();

    client = new Client(
      { name: 'sdk-sse-interop', version: '1.0.0' },
      { capabilities: { roots: { listChanged: true }, sampling: {} } },
    );
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: [
        { uri: 'file:///work/project', name: 'project' },
        { uri: 'file:///tmp', name: 'tmp' },
      ],
    }));
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      samplingPrompts.push(firstPrompt(request.params));
      return shoutingModel(request.params);
    });
    const transport = new SSEClientTransport(new URL(`http://127.0.0.1:${http.port}/sse`));
    await within(client.connect(transport), 10_000, 'initialize over SSE');
  });

  after(async () => {
    await client?.close();
    await handler?.close();
    await http?.close();
  });

  test('initialize: one session, the demo server identity and a negotiated version', () => {
    assert.equal(client.getServerVersion()?.name, 'mcpwire-demo');
    assert.ok(client.getServerCapabilities()?.tools);
    assert.match(client.getInstructions() ?? '', /demonstration server/);
    assert.equal(handler.sessionCount, 1);
    const [session] = handler.server.sessions;
    assert.equal(session.protocolVersion, '2025-11-25');
    assert.equal(session.clientInfo?.name, 'sdk-sse-interop');
  });

  test('list and call tools: echo and add', async () => {
    const { tools } = await within(client.listTools(), 5000, 'tools/list');
    const names = tools.map((t) => t.name);
    for (const name of ['echo', 'add', 'sample', 'list_roots']) assert.ok(names.includes(name), name);
    const echo = await within(
      client.callTool({ name: 'echo', arguments: { message: 'over legacy SSE' } }),
      5000,
      'echo',
    );
    assert.equal(toolText(echo), 'Echo: over legacy SSE');
    const add = await within(client.callTool({ name: 'add', arguments: { a: 2, b: 40 } }), 5000, 'add');
    assert.deepEqual(add.structuredContent, { sum: 42 });
  });

  test('concurrent calls are each answered with their own result', async () => {
    const sums = await within(
      Promise.all(
        Array.from({ length: 20 }, (_, i) => client.callTool({ name: 'add', arguments: { a: i, b: 1000 } })),
      ),
      5000,
      'concurrent adds',
    );
    assert.deepEqual(
      sums.map((r) => (r.structuredContent as { sum: number }).sum),
      Array.from({ length: 20 }, (_, i) => i + 1000),
    );
  });

  test('read demo://readme', async () => {
    const { contents } = await within(client.readResource({ uri: 'demo://readme' }), 5000, 'resources/read');
    assert.equal(contents[0]?.uri, 'demo://readme');
    assert.match(String((contents[0] as { text?: string }).text), /^# mcpwire demo/);
  });

  test('get prompt greet', async () => {
    const prompt = await within(
      client.getPrompt({ name: 'greet', arguments: { name: 'Grace' } }),
      5000,
      'prompts/get',
    );
    assert.equal(prompt.description, 'Greeting for Grace');
    assert.deepEqual(prompt.messages[0]?.content, { type: 'text', text: 'Please greet Grace warmly.' });
  });

  test('sampling round trip: the sample tool asks the SDK client’s model', async () => {
    const result = await within(
      client.callTool({ name: 'sample', arguments: { prompt: 'hello there' } }),
      5000,
      'sample',
    );
    assert.equal(toolText(result), 'The model says: HELLO THERE');
    assert.deepEqual(samplingPrompts, ['hello there']);
  });

  test('roots round trip: list_roots asks the SDK client for its roots', async () => {
    const result = await within(client.callTool({ name: 'list_roots', arguments: {} }), 5000, 'list_roots');
    assert.deepEqual(result.structuredContent, { roots: ['file:///work/project', 'file:///tmp'] });
  });

  test('no request was refused along the way, and closing the client ends its session', async () => {
    assert.deepEqual(handlerErrors, []);
    await client.close();
    const deadline = Date.now() + 5000;
    while (handler.sessionCount !== 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    assert.equal(handler.sessionCount, 0);
    assert.equal(handler.server.sessions.size, 0);
  });
});
