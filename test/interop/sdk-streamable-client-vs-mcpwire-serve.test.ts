import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  type Root,
} from '@modelcontextprotocol/sdk/types.js';
import { type CliRun, killCliRuns, runCli } from '../../src/test-support/cli-run.js';
import { shoutingModel } from '../../src/test-support/sdk-sampling-model.js';
import { until } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

// The official SDK's Streamable HTTP client against the `mcpwire serve` command itself, as a user runs it.
describe('official SDK StreamableHTTPClientTransport ↔ mcpwire serve', () => {
  let serve: CliRun;
  let client: Client;
  let transport: StreamableHTTPClientTransport;
  let roots: Root[] = [{ uri: 'file:///work/project', name: 'project' }];
  const logs: unknown[] = [];

  before(async () => {
    serve = runCli(['serve', '--port', '0', '--no-legacy-sse']);
    await until(() => /\/mcp/.test(serve.stdout()), 20_000, 'the URL on stdout');
    const url = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(serve.stdout())![0];
    client = new Client(
      { name: 'sdk-interop', version: '1.0.0' },
      { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } } },
    );
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
    client.setRequestHandler(CreateMessageRequestSchema, (request) => shoutingModel(request.params));
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Grace' } }));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params.data);
    });
    transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
  });

  after(async () => {
    await client?.close();
    serve?.child.kill('SIGINT');
    await serve?.exit(10_000).catch(() => {});
    killCliRuns();
  });

  test('tools: echo with its log, add with structuredContent, progress from long_running', async () => {
    await client.setLoggingLevel('info');
    const echo = await client.callTool({ name: 'echo', arguments: { message: 'over HTTP' } });
    assert.equal(toolText(echo), 'Echo: over HTTP');
    assert.ok(logs.includes('echo called with "over HTTP"'));
    const add = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    assert.deepEqual(add.structuredContent, { sum: 42 });
    const progress: number[] = [];
    await client.callTool({ name: 'long_running', arguments: { duration: 0.2, steps: 4 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    assert.deepEqual(progress.slice(0, 3), [1, 2, 3]);
  });

  test('resources, the template, the prompt and completion', async () => {
    const readme = await client.readResource({ uri: 'demo://readme' });
    assert.match(String((readme.contents[0] as { text: string }).text), /mcpwire demo/);
    const item = await client.readResource({ uri: 'demo://items/7' });
    assert.equal((item.contents[0] as { text: string }).text, 'This is demo item 7.');
    const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
    assert.deepEqual(prompt.messages[0].content, { type: 'text', text: 'Please greet Ada warmly.' });
    const done = await client.complete({
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'name', value: 'gr' },
    });
    assert.deepEqual(done.completion.values, ['Grace']);
  });

  test('sampling, roots (before and after list_changed) and elicitation round trips', async () => {
    const sampled = await client.callTool({ name: 'sample', arguments: { prompt: 'hello' } });
    assert.equal(toolText(sampled), 'The model says: HELLO');
    const first = await client.callTool({ name: 'list_roots' });
    assert.deepEqual(first.structuredContent, { roots: ['file:///work/project'] });
    roots = [{ uri: 'file:///tmp/other', name: 'other' }];
    await client.sendRootsListChanged();
    const second = await client.callTool({ name: 'list_roots' });
    assert.deepEqual(second.structuredContent, { roots: ['file:///tmp/other'] });
    const named = await client.callTool({ name: 'elicit_name' });
    assert.equal(toolText(named), 'Hello, Grace');
  });

  test('DELETE on close ends the session', async () => {
    const sessionId = transport.sessionId;
    assert.ok(sessionId);
    await transport.terminateSession();
    assert.equal(transport.sessionId, undefined);
  });
});
