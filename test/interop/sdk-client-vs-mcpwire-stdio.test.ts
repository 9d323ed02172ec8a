// The official SDK's Client against `mcpwire serve --stdio` (the demo server), over a real pipe:
// every feature the demo shows, seen through a client no one here wrote.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type JSONRPCMessage,
  ListRootsRequestSchema,
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
  McpError,
  type Progress,
  type Root,
} from '@modelcontextprotocol/sdk/types.js';
import { CLI } from '../../src/test-support/cli-run.js';
import { shoutingModel } from '../../src/test-support/sdk-sampling-model.js';
import { within } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

/** Passes everything through to the SDK's stdio transport and keeps what the server sent. */
class RecordingTransport implements Transport {
  readonly received: JSONRPCMessage[] = [];
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;

  constructor(readonly inner: StdioClientTransport) {
    inner.onmessage = (message) => {
      this.received.push(message);
      this.onmessage?.(message);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.inner.send(message);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

describe('SDK Client ↔ mcpwire serve --stdio', () => {
  let client: Client;
  let transport: RecordingTransport;
  let stderr = '';
  let roots: Root[] = [{ uri: 'file:///work/project', name: 'project' }];
  const logs: LoggingMessageNotification['params'][] = [];
  const samplingRequests: unknown[] = [];
  const elicitRequests: unknown[] = [];
  const sdkErrors: Error[] = [];

  before(async () => {
    assert.ok(existsSync(CLI), `${CLI} is missing: run \`npm run build\` first (npm test does)`);
    const stdio = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--stdio'],
      stderr: 'pipe',
    });
    stdio.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    transport = new RecordingTransport(stdio);
    client = new Client(
      { name: 'sdk-interop-client', version: '1.0.0' },
      { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } } },
    );
    client.onerror = (err) => sdkErrors.push(err);
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      samplingRequests.push(request.params);
      return shoutingModel(request.params);
    });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      elicitRequests.push(request.params);
      return { action: 'accept', content: { name: 'Grace Hopper' } };
    });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(notification.params);
    });
    await within(client.connect(transport), 10_000, 'initialize');
  });

  after(async () => {
    await client?.close();
  });

  test('initialize: server info, capabilities, instructions and version 2025-11-25', () => {
    assert.deepEqual(client.getServerVersion(), {
      name: 'mcpwire-demo',
      title: 'mcpwire demo server',
      version: '0.1.0',
    });
    assert.deepEqual(client.getServerCapabilities(), {
      logging: {},
      completions: {},
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      tools: { listChanged: true },
      // stdio authenticates no one: no tasks/list, which would show every caller the others' tasks.
      tasks: { cancel: {}, requests: { tools: { call: {} } } },
      // The counter app (MCP Apps).
      extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
    });
    assert.match(client.getInstructions() ?? '', /^A demonstration server/);
    const initialize = transport.received[0] as unknown as { result: { protocolVersion: string } };
    assert.equal(initialize.result.protocolVersion, '2025-11-25');
    assert.match(stderr, /serving the demo server on stdio/);
  });

  test('listTools: all twelve tools with their schemas', async () => {
    const { tools, nextCursor } = await client.listTools();
    assert.equal(nextCursor, undefined);
    assert.deepEqual(
      tools.map((t) => t.name),
      [
        'echo',
        'add',
        'long_running',
        'countdown',
        'sample',
        'list_roots',
        'elicit_name',
        'toggle_tool',
        'touch_readme',
        'counter',
        'counter_increment',
        'counter_reset',
      ],
    );
    const byName = new Map(tools.map((t) => [t.name, t]));
    assert.deepEqual(byName.get('echo')?.inputSchema, {
      type: 'object',
      properties: { message: { type: 'string', description: 'Text to echo back' } },
      required: ['message'],
    });
    assert.deepEqual(byName.get('echo')?.annotations, { readOnlyHint: true, openWorldHint: false });
    assert.deepEqual(byName.get('add')?.inputSchema, {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    assert.deepEqual(byName.get('add')?.outputSchema, {
      type: 'object',
      properties: { sum: { type: 'number' } },
      required: ['sum'],
    });
    assert.deepEqual(byName.get('long_running')?.inputSchema.properties?.steps, {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      default: 5,
    });
    assert.deepEqual(byName.get('sample')?.inputSchema.required, ['prompt']);
    // Tools declared without an input schema still carry the object schema the spec requires.
    assert.deepEqual(byName.get('list_roots')?.inputSchema, { type: 'object' });
    assert.deepEqual(byName.get('elicit_name')?.inputSchema, { type: 'object' });
    for (const tool of tools) assert.equal(typeof tool.description, 'string', tool.name);
  });

  test('callTool: echo and add (structuredContent checked by the SDK against outputSchema)', async () => {
    const echo = await client.callTool({ name: 'echo', arguments: { message: 'hi there' } });
    assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: hi there' }]);
    assert.equal(echo.isError, undefined);
    const add = await client.callTool({ name: 'add', arguments: { a: 2, b: 40.5 } });
    assert.deepEqual(add.structuredContent, { sum: 42.5 });
    assert.deepEqual(add.content, [{ type: 'text', text: '42.5' }]);
  });

  test('callTool with invalid arguments: an isError result the model can read', async () => {
    const result = await client.callTool({ name: 'add', arguments: { a: 'two', b: 3 } });
    assert.equal(result.isError, true);
    // The message names the tool and the offending field, so the model can correct its call.
    assert.match(toolText(result), /^Invalid arguments for tool "add": .*\ba\b.*number/);
  });

  test('callTool of an unknown tool: JSON-RPC error -32602', async () => {
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (err: unknown) => {
      assert.ok(err instanceof McpError, String(err));
      assert.equal(err.code, -32602);
      assert.match(err.message, /no_such_tool/);
      return true;
    });
  });

  test('long_running: progress notifications in order, all before the result', async () => {
    const events: Array<Progress | 'result'> = [];
    const result = await client.callTool(
      { name: 'long_running', arguments: { duration: 0.2, steps: 4 } },
      undefined,
      {
        onprogress: (progress) => events.push(progress),
      },
    );
    events.push('result');
    assert.match(toolText(result), /completed: 4 steps in 0.2 s/);
    const expected = [1, 2, 3, 4].map((step) => ({ progress: step, total: 4, message: `step ${step} of 4` }));

    // On the wire: all four notifications, in order, then the response.
    const wire = transport.received as Array<{
      id?: unknown;
      method?: string;
      params?: Record<string, unknown>;
    }>;
    const responseAt = wire.findLastIndex((m) => m.id !== undefined && m.method === undefined);
    const token = wire[responseAt]?.id;
    const progress = wire
      .map((m, at) => ({ m, at }))
      .filter(({ m }) => m.method === 'notifications/progress' && m.params?.progressToken === token);
    assert.deepEqual(
      progress.map(({ m }) => m.params),
      expected.map((p) => ({ ...p, progressToken: token })),
    );
    for (const { at } of progress)
      assert.ok(at < responseAt, 'a progress notification came after the result');

    // Through the SDK: in order and before the result. The SDK dispatches notifications a microtask
    // late but responses at once, so it drops a final notification that shares a chunk with the
    // response (modelcontextprotocol/typescript-sdk#2580): only a prefix is guaranteed.
    assert.equal(events.at(-1), 'result');
    const seen = events.slice(0, -1);
    assert.ok(seen.length >= 1, 'the SDK saw no progress at all');
    assert.deepEqual(seen, expected.slice(0, seen.length));
  });

  test('logging: info messages reach the SDK at level info, not at level error', async () => {
    await client.setLoggingLevel('info');
    logs.length = 0;
    await client.callTool({ name: 'echo', arguments: { message: 'logged' } });
    // The log is sent before the result; a ping round trip makes sure it has been dispatched.
    await client.ping();
    assert.deepEqual(logs, [{ level: 'info', logger: 'demo', data: 'echo called with "logged"' }]);

    await client.setLoggingLevel('error');
    logs.length = 0;
    await client.callTool({ name: 'echo', arguments: { message: 'quiet' } });
    await client.ping();
    assert.deepEqual(logs, []);
  });

  test('resources: list and read demo://readme', async () => {
    const { resources } = await client.listResources();
    assert.deepEqual(resources, [
      { uri: 'demo://readme', name: 'readme', title: 'About this server', mimeType: 'text/markdown' },
      {
        uri: 'ui://demo/counter',
        name: 'counter',
        title: 'Counter view',
        mimeType: 'text/html;profile=mcp-app',
        _meta: { ui: { prefersBorder: true } },
      },
    ]);
    const { contents } = await client.readResource({ uri: 'demo://readme' });
    assert.equal(contents.length, 1);
    assert.equal(contents[0]?.uri, 'demo://readme');
    assert.equal(contents[0]?.mimeType, 'text/markdown');
    assert.match(String((contents[0] as { text?: string }).text), /^# mcpwire demo/);
  });

  test('resource templates: list, and read demo://items/7', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(resourceTemplates, [
      { uriTemplate: 'demo://items/{id}', name: 'item', title: 'Demo item', mimeType: 'text/plain' },
    ]);
    const { contents } = await client.readResource({ uri: 'demo://items/7' });
    assert.deepEqual(contents, [
      { uri: 'demo://items/7', mimeType: 'text/plain', text: 'This is demo item 7.' },
    ]);
  });

  test('prompts: list and get greet', async () => {
    const { prompts } = await client.listPrompts();
    assert.equal(prompts.length, 1);
    assert.equal(prompts[0]?.name, 'greet');
    assert.deepEqual(prompts[0]?.arguments, [{ name: 'name', description: 'Who to greet', required: true }]);
    const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
    assert.deepEqual(prompt, {
      description: 'Greeting for Ada',
      messages: [{ role: 'user', content: { type: 'text', text: 'Please greet Ada warmly.' } }],
    });
  });

  test('completion: the greet name argument and the template id variable', async () => {
    const names = await client.complete({
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'name', value: 'a' },
    });
    assert.deepEqual(names.completion.values, ['Ada', 'Alan']);
    const ids = await client.complete({
      ref: { type: 'ref/resource', uri: 'demo://items/{id}' },
      argument: { name: 'id', value: '4' },
    });
    assert.deepEqual(ids.completion.values, ['42']);
  });

  test('sampling: the sample tool returns the text of the SDK client sampling handler', async () => {
    samplingRequests.length = 0;
    const result = await client.callTool({ name: 'sample', arguments: { prompt: 'say hi', maxTokens: 20 } });
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.content, [{ type: 'text', text: 'The model says: SAY HI' }]);
    assert.deepEqual(samplingRequests, [
      { messages: [{ role: 'user', content: { type: 'text', text: 'say hi' } }], maxTokens: 20 },
    ]);
  });

  test('roots: list_roots gets the SDK client roots, and the new ones after list_changed', async () => {
    const first = await client.callTool({ name: 'list_roots' });
    assert.deepEqual(first.structuredContent, { roots: ['file:///work/project'] });
    roots = [
      { uri: 'file:///work/a', name: 'a' },
      { uri: 'file:///work/b', name: 'b' },
    ];
    await client.sendRootsListChanged();
    const second = await client.callTool({ name: 'list_roots' });
    assert.deepEqual(second.structuredContent, { roots: ['file:///work/a', 'file:///work/b'] });
    assert.equal(toolText(second), 'file:///work/a\nfile:///work/b');
  });

  test('elicitation: elicit_name is answered by the SDK form handler', async () => {
    elicitRequests.length = 0;
    const result = await client.callTool({ name: 'elicit_name' });
    assert.deepEqual(result.content, [{ type: 'text', text: 'Hello, Grace Hopper' }]);
    assert.equal(elicitRequests.length, 1);
    const params = elicitRequests[0] as { mode?: string; message: string; requestedSchema: unknown };
    assert.equal(params.mode, 'form');
    assert.equal(params.message, 'What is your name?');
    assert.deepEqual(params.requestedSchema, {
      type: 'object',
      properties: { name: { type: 'string', title: 'Name', minLength: 1 } },
      required: ['name'],
    });
  });

  test('ping: client → server', async () => {
    assert.deepEqual(await client.ping(), {});
  });

  test('the SDK saw no unparsable line and no protocol error from the server', () => {
    // The one error allowed is the SDK's own race on a final progress notification (see long_running).
    const unexpected = sdkErrors.filter(
      (err) => !/progress notification for an unknown token/.test(err.message),
    );
    assert.deepEqual(unexpected, []);
    assert.ok(transport.received.length > 20);
  });

  test('close: the server exits on end of stdin, before the SDK would resort to SIGTERM', async () => {
    let closed = false;
    client.onclose = () => {
      closed = true;
    };
    const started = performance.now();
    await client.close();
    // The SDK ends stdin, then waits up to 2 s before SIGTERM: a prompt close means a clean exit.
    assert.ok(performance.now() - started < 1500, `close took ${performance.now() - started} ms`);
    assert.equal(closed, true);
    assert.equal(stderr, 'mcpwire: serving the demo server on stdio\n');
  });
});
