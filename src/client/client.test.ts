import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type {
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  Params,
  RequestId,
} from '../jsonrpc/types.js';
import type { Connection, Receiver } from '../peer/connection.js';
import { CapabilityError, RequestCancelledError, RequestTimeoutError } from '../peer/errors.js';
import { createMemoryPair } from '../peer/memory.js';
import type { ServerCapabilities } from '../protocol/types.js';
import { ManualClock } from '../test-support/manual-clock.js';
import { Client, type ClientOptions } from './client.js';

/** Returned by a script entry: the fake server never answers that request. */
const SILENT = Symbol('silent');
type Answer = Record<string, unknown> | McpError | typeof SILENT;
type Script = Record<string, (params: any, request: JsonRpcRequest) => Answer | Promise<Answer>>;

const ALL_CAPS: ServerCapabilities = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {},
};

/**
 * A scripted MCP server over a raw Connection: answers requests from `script`, records every
 * message it receives, and sends requests and notifications of its own.
 */
class FakeServer implements Receiver {
  readonly received: JsonRpcMessage[] = [];
  isClosed = false;
  lastRequestId: RequestId | undefined;
  private nextId = 1000;
  private readonly waiting = new Map<RequestId, (response: JsonRpcResponse) => void>();

  constructor(
    readonly connection: Connection,
    public script: Script,
  ) {
    connection.start(this);
  }

  requests(method: string): JsonRpcRequest[] {
    return this.received.filter(
      (m): m is JsonRpcRequest => 'method' in m && 'id' in m && m.method === method,
    );
  }

  notifications(method: string): JsonRpcNotification[] {
    return this.received.filter(
      (m): m is JsonRpcNotification => 'method' in m && !('id' in m) && m.method === method,
    );
  }

  message(m: JsonRpcMessage): void {
    this.received.push(m);
    if (!('method' in m)) {
      this.waiting.get(m.id as RequestId)?.(m);
      return;
    }
    if ('id' in m) void this.answer(m);
  }
  batch(): void {}
  error(): void {}
  restarted(): void {}
  closed(): void {
    this.isClosed = true;
  }

  private async answer(request: JsonRpcRequest): Promise<void> {
    const entry = this.script[request.method];
    if (entry === undefined) {
      await this.connection.send({
        jsonrpc: '2.0',
        id: request.id,
        error: { code: ErrorCode.MethodNotFound, message: `Method not found: ${request.method}` },
      });
      return;
    }
    const out = await entry(request.params ?? {}, request);
    if (out === SILENT) return;
    await this.connection.send(
      out instanceof McpError
        ? { jsonrpc: '2.0', id: request.id, error: out.toJSON() }
        : { jsonrpc: '2.0', id: request.id, result: out },
    );
  }

  /** Sends a request to the client and resolves with its whole response (result or error). */
  request(method: string, params?: Params): Promise<JsonRpcResponse> {
    const id = this.nextId++;
    this.lastRequestId = id;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      void this.connection.send(
        params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params },
      );
    });
  }

  notify(method: string, params?: Params): Promise<void> {
    return this.connection.send(
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params },
    );
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const CLIENT_INFO = { name: 'test-client', version: '1.0.0' };

function initializeWith(capabilities: ServerCapabilities, extra: Record<string, unknown> = {}) {
  return (params: { protocolVersion: string }) => ({
    protocolVersion: params.protocolVersion,
    capabilities,
    serverInfo: { name: 'fake-server', version: '9.9.9' },
    instructions: 'Be kind.',
    ...extra,
  });
}

async function connect(options: ClientOptions = {}, script: Script = {}, capabilities = ALL_CAPS) {
  const [clientEnd, serverEnd] = createMemoryPair();
  const server = new FakeServer(serverEnd, { initialize: initializeWith(capabilities), ...script });
  const client = new Client(CLIENT_INFO, options);
  const session = await client.connect(clientEnd);
  await tick();
  return { session, server, client };
}

/** Connects with a server whose initialize the test controls; returns the pending connect. */
function connectRaw(options: ClientOptions, script: Script) {
  const [clientEnd, serverEnd] = createMemoryPair();
  const server = new FakeServer(serverEnd, script);
  const client = new Client(CLIENT_INFO, options);
  return { server, client, clientEnd };
}

function errorOf(response: JsonRpcResponse): { code: number; message: string } {
  assert.ok('error' in response, `expected an error response, got ${JSON.stringify(response)}`);
  return response.error;
}

function resultOf(response: JsonRpcResponse): Record<string, unknown> {
  assert.ok('result' in response, `expected a result, got ${JSON.stringify(response)}`);
  return response.result;
}

describe('Client.connect', () => {
  test('initializes, stores what the server said and sends notifications/initialized', async () => {
    const { session, server } = await connect();
    const [init] = server.requests('initialize');
    assert.deepEqual(init.params, {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: CLIENT_INFO,
    });
    assert.equal(server.notifications('notifications/initialized').length, 1);
    assert.equal(session.protocolVersion, '2025-11-25');
    assert.deepEqual(session.serverInfo, { name: 'fake-server', version: '9.9.9' });
    assert.deepEqual(session.serverCapabilities, ALL_CAPS);
    assert.equal(session.instructions, 'Be kind.');
  });

  test('declares exactly the capabilities its options give', async () => {
    const handler = () => ({ action: 'cancel' as const });
    const cases: Array<[ClientOptions, unknown]> = [
      [{ roots: [] }, { roots: { listChanged: true } }],
      [
        { sampling: () => ({ role: 'assistant', content: { type: 'text', text: '' }, model: 'm' }) },
        { sampling: {} },
      ],
      [
        {
          sampling: () => ({ role: 'assistant', content: { type: 'text', text: '' }, model: 'm' }),
          samplingTools: true,
        },
        { sampling: { tools: {} } },
      ],
      [{ elicitation: { form: handler } }, { elicitation: { form: {} } }],
      [{ elicitation: { url: handler } }, { elicitation: { url: {} } }],
      [{ elicitation: { form: handler, url: handler } }, { elicitation: { form: {}, url: {} } }],
      [{ elicitation: {} }, {}],
    ];
    for (const [options, expected] of cases) {
      const { server } = await connect(options);
      assert.deepEqual(server.requests('initialize')[0].params!.capabilities, expected);
    }
  });

  test('accepts an older version the server answers with, and asks for the configured one', async () => {
    const { server, client, clientEnd } = connectRaw(
      { protocolVersion: '2025-06-18' },
      { initialize: (p) => ({ ...initializeWith({})(p), protocolVersion: '2025-03-26' }) },
    );
    const session = await client.connect(clientEnd);
    assert.equal(server.requests('initialize')[0].params!.protocolVersion, '2025-06-18');
    assert.equal(session.protocolVersion, '2025-03-26');
  });

  test('refuses a protocol version it does not speak: closes and names both versions', async () => {
    const { server, client, clientEnd } = connectRaw(
      {},
      { initialize: (p) => ({ ...initializeWith({})(p), protocolVersion: '1999-01-01' }) },
    );
    await assert.rejects(client.connect(clientEnd), (err: Error) => {
      assert.ok(err instanceof McpError);
      assert.match(err.message, /"1999-01-01"/);
      assert.match(err.message, /"2025-11-25"/);
      return true;
    });
    await tick();
    assert.equal(server.isClosed, true);
    assert.equal(server.notifications('notifications/initialized').length, 0);
  });

  test('refuses a malformed initialize result, naming the field, and closes', async () => {
    const { server, client, clientEnd } = connectRaw(
      {},
      { initialize: (p) => ({ protocolVersion: p.protocolVersion, capabilities: {} }) },
    );
    await assert.rejects(client.connect(clientEnd), /serverInfo/);
    await tick();
    assert.equal(server.isClosed, true);
  });

  test('an error answer to initialize rejects connect with it', async () => {
    const { client, clientEnd } = connectRaw(
      {},
      { initialize: () => new McpError(ErrorCode.InvalidParams, 'Unsupported protocol version') },
    );
    await assert.rejects(client.connect(clientEnd), {
      code: ErrorCode.InvalidParams,
      message: /Unsupported/,
    });
  });

  test('times out on a silent server without cancelling initialize, and closes', async () => {
    const clock = new ManualClock();
    const { server, client, clientEnd } = connectRaw({ clock }, { initialize: () => SILENT });
    const connecting = client.connect(clientEnd, { timeoutMs: 5000 });
    await tick();
    clock.advance(4999);
    await tick();
    assert.equal(server.isClosed, false);
    clock.advance(1);
    await assert.rejects(connecting, RequestTimeoutError);
    await tick();
    assert.equal(server.isClosed, true);
    assert.equal(server.notifications('notifications/cancelled').length, 0);
  });

  test('an aborted handshake rejects and closes without notifications/cancelled', async () => {
    const { server, client, clientEnd } = connectRaw({}, { initialize: () => SILENT });
    const controller = new AbortController();
    const connecting = client.connect(clientEnd, { signal: controller.signal });
    await tick();
    controller.abort('user gave up');
    await assert.rejects(connecting, RequestCancelledError);
    await tick();
    assert.equal(server.isClosed, true);
    assert.equal(server.notifications('notifications/cancelled').length, 0);
  });

  test('a Client refuses a protocol version it cannot ask for, and roots that are not file:// URIs', () => {
    assert.throws(() => new Client(CLIENT_INFO, { protocolVersion: '2030-01-01' }), /2030-01-01.*2025-11-25/);
    assert.throws(() => new Client(CLIENT_INFO, { roots: [{ uri: 'https://x.test/' }] }), /roots\[0\]\.uri/);
  });
});

describe('ClientSession requests', () => {
  test('refuses every feature the server did not declare, sending nothing; ping is always allowed', async () => {
    const { session, server } = await connect({}, { ping: () => ({}) }, {});
    const before = server.received.length;
    const calls: Array<() => Promise<unknown>> = [
      () => session.listTools(),
      () => session.callTool('x'),
      () => session.tools().next(),
      () => session.listResources(),
      () => session.resources().next(),
      () => session.listResourceTemplates(),
      () => session.resourceTemplates().next(),
      () => session.readResource('file:///a'),
      () => session.subscribeResource('file:///a'),
      () => session.unsubscribeResource('file:///a'),
      () => session.listPrompts(),
      () => session.prompts().next(),
      () => session.getPrompt('p'),
      () => session.complete({ type: 'ref/prompt', name: 'p' }, { name: 'a', value: '' }),
      () => session.setLoggingLevel('info'),
    ];
    for (const call of calls) await assert.rejects(call(), CapabilityError);
    await tick();
    assert.equal(server.received.length, before);
    await session.ping();
  });

  test('subscribe needs resources.subscribe, not just resources', async () => {
    const { session, server } = await connect({}, {}, { resources: {} });
    await assert.rejects(session.subscribeResource('file:///a'), {
      name: 'CapabilityError',
      message: /subscribe/,
    });
    await tick();
    assert.equal(server.requests('resources/subscribe').length, 0);
  });

  test('sends each method with its params and returns the result', async () => {
    const echo = (params: Params) => ({ echoed: params });
    const { session, server } = await connect(
      {},
      {
        'resources/read': (p) => ({ contents: [{ uri: p.uri, text: 'hi' }] }),
        'resources/subscribe': echo,
        'resources/unsubscribe': echo,
        'prompts/get': (p) => ({
          messages: [{ role: 'user', content: { type: 'text', text: p.arguments.x } }],
        }),
        'completion/complete': () => ({ completion: { values: ['a', 'b'] } }),
        'logging/setLevel': echo,
        'resources/templates/list': () => ({
          resourceTemplates: [{ name: 't', uriTemplate: 'file:///{x}' }],
        }),
      },
    );
    assert.deepEqual(await session.readResource('file:///r'), {
      contents: [{ uri: 'file:///r', text: 'hi' }],
    });
    await session.subscribeResource('file:///r');
    await session.unsubscribeResource('file:///r');
    const prompt = await session.getPrompt('p', { x: 'y' });
    assert.deepEqual(prompt.messages[0].content, { type: 'text', text: 'y' });
    const done = await session.complete(
      { type: 'ref/prompt', name: 'p' },
      { name: 'x', value: 'a' },
      { arguments: { z: '1' } },
    );
    assert.deepEqual(done.completion.values, ['a', 'b']);
    await session.setLoggingLevel('warning');
    const templates = [];
    for await (const t of session.resourceTemplates()) templates.push(t.name);
    assert.deepEqual(templates, ['t']);
    const params = (method: string) => server.requests(method)[0].params;
    assert.deepEqual(params('resources/subscribe'), { uri: 'file:///r' });
    assert.deepEqual(params('resources/unsubscribe'), { uri: 'file:///r' });
    assert.deepEqual(params('prompts/get'), { name: 'p', arguments: { x: 'y' } });
    assert.deepEqual(params('completion/complete'), {
      ref: { type: 'ref/prompt', name: 'p' },
      argument: { name: 'x', value: 'a' },
      context: { arguments: { z: '1' } },
    });
    assert.deepEqual(params('logging/setLevel'), { level: 'warning' });
    assert.equal(params('resources/templates/list'), undefined);
  });

  test('the iterators follow nextCursor across pages', async () => {
    const pages: Record<string, { resources: { uri: string; name: string }[]; nextCursor?: string }> = {
      '': { resources: [{ uri: 'file:///1', name: '1' }], nextCursor: 'c2' },
      c2: {
        resources: [
          { uri: 'file:///2', name: '2' },
          { uri: 'file:///3', name: '3' },
        ],
        nextCursor: 'c3',
      },
      c3: { resources: [{ uri: 'file:///4', name: '4' }] },
    };
    const { session, server } = await connect({}, { 'resources/list': (p) => pages[p.cursor ?? ''] });
    const names = [];
    for await (const r of session.resources()) names.push(r.name);
    assert.deepEqual(names, ['1', '2', '3', '4']);
    assert.deepEqual(
      server.requests('resources/list').map((r) => r.params?.cursor),
      [undefined, 'c2', 'c3'],
    );
  });

  test('an iterator stops with a clear error when the server repeats a cursor', async () => {
    const { session, server } = await connect(
      {},
      {
        'prompts/list': (p) => ({
          prompts: [{ name: `p-${p.cursor ?? 0}` }],
          nextCursor: p.cursor === 'b' ? 'a' : p.cursor === 'a' ? 'b' : 'a',
        }),
      },
    );
    const seen: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const p of session.prompts()) seen.push(p.name);
      })(),
      /cursor "a" twice/,
    );
    assert.deepEqual(seen, ['p-0', 'p-a', 'p-b']);
    assert.equal(server.requests('prompts/list').length, 3);
  });

  test('an error answer rejects with the McpError the server sent', async () => {
    const { session } = await connect(
      {},
      {
        'resources/read': () =>
          new McpError(ErrorCode.ResourceNotFound, 'Resource not found', { uri: 'file:///x' }),
      },
    );
    await assert.rejects(session.readResource('file:///x'), {
      code: ErrorCode.ResourceNotFound,
      data: { uri: 'file:///x' },
    });
  });

  test('a request times out by the clock, and the server is sent notifications/cancelled', async () => {
    const clock = new ManualClock();
    const { session, server } = await connect(
      { clock, requestTimeoutMs: 1000 },
      { 'resources/read': () => SILENT },
    );
    const reading = session.readResource('file:///slow');
    await tick();
    clock.advance(1000);
    await assert.rejects(reading, RequestTimeoutError);
    await tick();
    const [cancelled] = server.notifications('notifications/cancelled');
    assert.equal(cancelled.params!.requestId, server.requests('resources/read')[0].id);
  });
});

describe('ClientSession.callTool and output schemas', () => {
  const weather = {
    name: 'weather',
    inputSchema: { type: 'object' },
    outputSchema: {
      type: 'object',
      properties: { temperature: { type: 'number' } },
      required: ['temperature'],
    },
  };
  const plain = { name: 'plain', inputSchema: { type: 'object' } };

  function toolServer(call: (params: any) => Answer) {
    return { 'tools/list': () => ({ tools: [weather, plain] }), 'tools/call': call };
  }

  test('reads the tool list once, then accepts conforming structuredContent', async () => {
    const { session, server } = await connect(
      {},
      toolServer(() => ({ content: [], structuredContent: { temperature: 21 } })),
    );
    const result = await session.callTool('weather', { city: 'Paris' });
    assert.deepEqual(result.structuredContent, { temperature: 21 });
    await session.callTool('weather', { city: 'Oslo' });
    await session.callTool('plain');
    assert.equal(server.requests('tools/list').length, 1);
    assert.deepEqual(server.requests('tools/call')[0].params, {
      name: 'weather',
      arguments: { city: 'Paris' },
    });
    assert.deepEqual(server.requests('tools/call')[2].params, { name: 'plain' });
  });

  test('refuses structuredContent that does not match, naming the field', async () => {
    const { session } = await connect(
      {},
      toolServer(() => ({ content: [], structuredContent: { temperature: 'hot' } })),
    );
    await assert.rejects(session.callTool('weather'), (err: Error) => {
      assert.ok(err instanceof McpError);
      assert.match(err.message, /weather/);
      assert.match(err.message, /structuredContent\.temperature/);
      assert.deepEqual((err.data as { result: unknown }).result, {
        content: [],
        structuredContent: { temperature: 'hot' },
      });
      return true;
    });
  });

  test('refuses a success without structuredContent when the tool has an outputSchema', async () => {
    const { session } = await connect(
      {},
      toolServer(() => ({ content: [{ type: 'text', text: '21' }] })),
    );
    await assert.rejects(session.callTool('weather'), /no structuredContent/);
  });

  test('does not check results marked isError, nor tools without an outputSchema', async () => {
    const { session } = await connect(
      {},
      toolServer((p) =>
        p.name === 'plain'
          ? { content: [], structuredContent: { anything: 1 } }
          : { content: [], isError: true },
      ),
    );
    assert.equal((await session.callTool('weather')).isError, true);
    assert.deepEqual((await session.callTool('plain')).structuredContent, { anything: 1 });
  });

  test('uses schemas learnt from a listing, and relearns them after tools/list_changed', async () => {
    let temperatureType = 'number';
    const { session, server } = await connect(
      {},
      {
        'tools/list': () => ({
          tools: [
            {
              ...weather,
              outputSchema: { type: 'object', properties: { temperature: { type: temperatureType } } },
            },
          ],
        }),
        'tools/call': () => ({ content: [], structuredContent: { temperature: 'mild' } }),
      },
    );
    const changed: number[] = [];
    session.on('toolsChanged', () => changed.push(1));
    for await (const _ of session.tools()) {
      // Listing teaches the session the output schemas.
    }
    await assert.rejects(session.callTool('weather'), /temperature/);
    assert.equal(server.requests('tools/list').length, 1);
    temperatureType = 'string';
    await server.notify('notifications/tools/list_changed');
    await tick();
    assert.deepEqual(changed, [1]);
    await session.callTool('weather');
    assert.equal(server.requests('tools/list').length, 2);
  });

  test('a later listing replaces a changed schema even without list_changed', async () => {
    let temperatureType = 'number';
    const { session } = await connect(
      {},
      {
        'tools/list': () => ({
          tools: [
            {
              ...weather,
              outputSchema: { type: 'object', properties: { temperature: { type: temperatureType } } },
            },
          ],
        }),
        'tools/call': (p) => ({ content: [], structuredContent: { temperature: p.arguments.t } }),
      },
    );
    await session.callTool('weather', { t: 20 });
    await session.listTools();
    await session.callTool('weather', { t: 21 });
    temperatureType = 'string';
    await session.listTools();
    await session.callTool('weather', { t: 'mild' });
    await assert.rejects(session.callTool('weather', { t: 22 }), /temperature/);
  });

  test('concurrent first calls share one listing', async () => {
    const { session, server } = await connect(
      {},
      toolServer(() => ({ content: [], structuredContent: { temperature: 1 } })),
    );
    await Promise.all([session.callTool('weather'), session.callTool('weather'), session.callTool('nope')]);
    assert.equal(server.requests('tools/list').length, 1);
  });

  test('an unknown tool is called unchecked after one listing', async () => {
    const { session, server } = await connect(
      {},
      toolServer(() => ({ content: [] })),
    );
    await session.callTool('ghost');
    await session.callTool('ghost');
    assert.equal(server.requests('tools/list').length, 1);
    assert.equal(server.requests('tools/call').length, 2);
  });
});

describe('ClientSession answering the server', () => {
  test('roots/list returns the current roots; setRoots replaces them and notifies', async () => {
    const { session, server } = await connect({ roots: [{ uri: 'file:///a', name: 'A' }] });
    assert.deepEqual(resultOf(await server.request('roots/list')), {
      roots: [{ uri: 'file:///a', name: 'A' }],
    });
    await session.setRoots([{ uri: 'file:///b' }]);
    await tick();
    assert.equal(server.notifications('notifications/roots/list_changed').length, 1);
    assert.deepEqual(resultOf(await server.request('roots/list')), { roots: [{ uri: 'file:///b' }] });
    assert.deepEqual(session.currentRoots, [{ uri: 'file:///b' }]);
    await assert.rejects(session.setRoots([{ uri: '/relative' }]), TypeError);
  });

  test('roots as a function: asked at each roots/list, its answer checked; rootsChanged notifies', async () => {
    let roots = [{ uri: 'file:///a' }];
    const asked: string[] = [];
    const { session, server } = await connect({
      roots: async (ctx) => {
        asked.push(ctx.session.serverInfo.name);
        return roots;
      },
    });
    assert.deepEqual(resultOf(await server.request('roots/list')), { roots: [{ uri: 'file:///a' }] });
    roots = [{ uri: 'file:///b' }];
    await session.rootsChanged();
    await tick();
    assert.equal(server.notifications('notifications/roots/list_changed').length, 1);
    assert.deepEqual(resultOf(await server.request('roots/list')), { roots: [{ uri: 'file:///b' }] });
    assert.equal(asked.length, 2);
    await assert.rejects(session.setRoots([{ uri: 'file:///c' }]), /call rootsChanged\(\) instead/);
    roots = [{ uri: '/relative' }];
    const wrong = errorOf(await server.request('roots/list'));
    assert.equal(wrong.code, ErrorCode.InternalError);
    assert.match(wrong.message, /result\.roots\[0\]/);
  });

  test('without the roots option: roots/list is -32601 and setRoots throws', async () => {
    const { session, server } = await connect();
    const error = errorOf(await server.request('roots/list'));
    assert.equal(error.code, ErrorCode.MethodNotFound);
    assert.match(error.message, /roots/);
    await assert.rejects(session.setRoots([]), /roots/);
    await assert.rejects(session.rootsChanged(), /declared none/);
    await tick();
    assert.equal(server.notifications('notifications/roots/list_changed').length, 0);
  });

  test('sampling runs the handler with the params and a context', async () => {
    const seen: unknown[] = [];
    const { server } = await connect({
      sampling: (params, ctx) => {
        seen.push(params.maxTokens, ctx.method, ctx.signal.aborted);
        return {
          role: 'assistant',
          content: { type: 'text', text: 'Paris' },
          model: 'm1',
          stopReason: 'endTurn',
        };
      },
    });
    const response = await server.request('sampling/createMessage', {
      messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }],
      maxTokens: 50,
    });
    assert.deepEqual(resultOf(response), {
      role: 'assistant',
      content: { type: 'text', text: 'Paris' },
      model: 'm1',
      stopReason: 'endTurn',
    });
    assert.deepEqual(seen, [50, 'sampling/createMessage', false]);
  });

  test('sampling with tools needs samplingTools; sampling without a handler is -32601', async () => {
    let calls = 0;
    const sampling = () => {
      calls++;
      return { role: 'assistant' as const, content: { type: 'text' as const, text: '' }, model: 'm' };
    };
    const request = {
      messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
      maxTokens: 5,
      tools: [{ name: 'get_weather', inputSchema: { type: 'object' } }],
    };
    const { server } = await connect({ sampling });
    const refused = errorOf(await server.request('sampling/createMessage', request));
    assert.equal(refused.code, ErrorCode.InvalidParams);
    assert.match(refused.message, /sampling\.tools/);
    assert.equal(calls, 0);

    const withTools = await connect({ sampling, samplingTools: true });
    resultOf(await withTools.server.request('sampling/createMessage', request));
    assert.equal(calls, 1);

    const none = await connect();
    assert.equal(
      errorOf(await none.server.request('sampling/createMessage', request)).code,
      ErrorCode.MethodNotFound,
    );
  });

  test('elicitation: form by default, with schema defaults filled in on accept', async () => {
    const { server } = await connect({
      elicitation: { form: (params) => ({ action: 'accept', content: { name: `${params.message}!` } }) },
    });
    const response = await server.request('elicitation/create', {
      message: 'Who?',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', default: 'nobody' },
          age: { type: 'integer', default: 30 },
          colours: { type: 'array', items: { type: 'string', enum: ['r', 'g'] }, default: ['r'] },
          plain: { type: 'boolean' },
        },
      },
    });
    assert.deepEqual(resultOf(response), {
      action: 'accept',
      content: { name: 'Who?!', age: 30, colours: ['r'] },
    });
  });

  test('elicitation defaults can be turned off, and are never applied to decline', async () => {
    const schema = { type: 'object', properties: { n: { type: 'number', default: 1 } } };
    const off = await connect({
      applyElicitationDefaults: false,
      elicitation: { form: () => ({ action: 'accept', content: {} }) },
    });
    assert.deepEqual(
      resultOf(await off.server.request('elicitation/create', { message: 'm', requestedSchema: schema })),
      {
        action: 'accept',
        content: {},
      },
    );
    const declined = await connect({ elicitation: { form: () => ({ action: 'decline' }) } });
    assert.deepEqual(
      resultOf(
        await declined.server.request('elicitation/create', { message: 'm', requestedSchema: schema }),
      ),
      { action: 'decline' },
    );
  });

  test('elicitation: url mode goes to the url handler; an undeclared mode is -32602', async () => {
    const urls: string[] = [];
    const { server } = await connect({
      elicitation: {
        url: (params) => {
          urls.push(params.url);
          return { action: 'accept' };
        },
      },
    });
    const url = { mode: 'url', message: 'Sign in', elicitationId: 'e1', url: 'https://auth.example/x' };
    assert.deepEqual(resultOf(await server.request('elicitation/create', url)), { action: 'accept' });
    assert.deepEqual(urls, ['https://auth.example/x']);
    const form = errorOf(
      await server.request('elicitation/create', {
        message: 'm',
        requestedSchema: { type: 'object', properties: {} },
      }),
    );
    assert.equal(form.code, ErrorCode.InvalidParams);
    assert.match(form.message, /"form"/);

    const none = await connect();
    assert.equal(
      errorOf(await none.server.request('elicitation/create', url)).code,
      ErrorCode.MethodNotFound,
    );
  });

  test('an unknown method is -32601 naming it; a handler failure is -32603 with its message', async () => {
    const { server } = await connect({
      sampling: () => {
        throw new Error('model offline');
      },
    });
    const unknown = errorOf(await server.request('foo/bar'));
    assert.deepEqual(unknown, { code: ErrorCode.MethodNotFound, message: 'Method not found: foo/bar' });
    const failed = errorOf(await server.request('sampling/createMessage', { messages: [], maxTokens: 1 }));
    assert.deepEqual(failed, { code: ErrorCode.InternalError, message: 'model offline' });
  });

  test('a server cancellation aborts the handler signal and no response is sent', async () => {
    let signal: AbortSignal | undefined;
    let release!: () => void;
    const { server } = await connect({
      sampling: async (_params, ctx) => {
        signal = ctx.signal;
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return { role: 'assistant', content: { type: 'text', text: 'late' }, model: 'm' };
      },
    });
    let answered = false;
    server.request('sampling/createMessage', { messages: [], maxTokens: 1 }).then(() => {
      answered = true;
    });
    await tick();
    await server.notify('notifications/cancelled', {
      requestId: server.lastRequestId,
      reason: 'no longer needed',
    });
    await tick();
    assert.equal(signal?.aborted, true);
    release();
    await tick();
    assert.equal(answered, false);
  });
});

describe('ClientSession events', () => {
  test('turns server notifications into typed events', async () => {
    const { session, server } = await connect();
    const got: unknown[] = [];
    session.on('toolsChanged', () => got.push('tools'));
    session.on('resourcesChanged', () => got.push('resources'));
    session.on('promptsChanged', () => got.push('prompts'));
    session.on('resourceUpdated', (p) => got.push(['updated', p.uri]));
    session.on('log', (p) => got.push(['log', p.level, p.data]));
    session.on('elicitationComplete', (p) => got.push(['elicited', p.elicitationId]));
    session.on('progress', (p) => got.push(['progress', p.progressToken, p.progress]));
    const all: string[] = [];
    session.on('notification', (n) => all.push(n.method));
    const sent: Array<[string, Params?]> = [
      ['notifications/tools/list_changed'],
      ['notifications/resources/list_changed'],
      ['notifications/prompts/list_changed'],
      ['notifications/resources/updated', { uri: 'file:///x' }],
      ['notifications/message', { level: 'error', data: { oops: 1 } }],
      ['notifications/elicitation/complete', { elicitationId: 'e9' }],
      ['notifications/progress', { progressToken: 'orphan', progress: 3 }],
      ['notifications/custom/thing', { a: 1 }],
    ];
    for (const [method, params] of sent) await server.notify(method, params);
    await tick();
    assert.deepEqual(got, [
      'tools',
      'resources',
      'prompts',
      ['updated', 'file:///x'],
      ['log', 'error', { oops: 1 }],
      ['elicited', 'e9'],
      ['progress', 'orphan', 3],
    ]);
    assert.deepEqual(
      all,
      sent.map(([method]) => method),
    );
  });

  test('off and the returned function remove a listener; a throwing listener reaches onerror only', async () => {
    const errors: Error[] = [];
    const { session, server } = await connect({ onerror: (err) => errors.push(err) });
    const got: string[] = [];
    const first = () => got.push('first');
    session.on('promptsChanged', first);
    const remove = session.on('promptsChanged', () => {
      throw new Error('listener broke');
    });
    session.on('promptsChanged', () => got.push('last'));
    await server.notify('notifications/prompts/list_changed');
    await tick();
    assert.deepEqual(got, ['first', 'last']);
    assert.deepEqual(
      errors.map((e) => e.message),
      ['listener broke'],
    );
    remove();
    session.off('promptsChanged', first);
    await server.notify('notifications/prompts/list_changed');
    await tick();
    assert.deepEqual(got, ['first', 'last', 'last']);
  });

  test('a request with onprogress receives its progress, not the progress event', async () => {
    const { session, server } = await connect(
      {},
      {
        'resources/read': async (p, request) => {
          const token = request.params!._meta as { progressToken: string | number };
          await server.notify('notifications/progress', {
            progressToken: token.progressToken,
            progress: 1,
            total: 2,
          });
          return { contents: [{ uri: p.uri, text: '' }] };
        },
      },
    );
    const events: unknown[] = [];
    session.on('progress', (p) => events.push(p));
    const progress: unknown[] = [];
    await session.readResource('file:///p', { onprogress: (p) => progress.push(p) });
    assert.deepEqual(progress, [{ progress: 1, total: 2, message: undefined }]);
    assert.deepEqual(events, []);
  });
});
