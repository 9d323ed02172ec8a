// Our Client over our legacy HTTP+SSE client transport against @modelcontextprotocol/server-everything
// in its `sse` mode (the official SDK's SSEServerTransport behind express): a server no one here wrote.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, type ClientSession } from '../../src/client/index.js';
import { SSEClientConnection } from '../../src/client/sse/sse-client-connection.js';
import type { Progress } from '../../src/peer/peer-options.js';
import { everythingClientOptions } from '../../src/test-support/everything-client-options.js';
import { type RunningEverything, startEverything } from '../../src/test-support/server-everything.js';
import { within } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

describe('mcpwire Client over SSEClientConnection ↔ server-everything (sse)', () => {
  let everything: RunningEverything;
  let connection: SSEClientConnection;
  let session: ClientSession;
  const { options, errors, samplingRequests } = everythingClientOptions('Sampled by mcpwire over SSE');

  before(async () => {
    everything = await startEverything('sse');
    const client = new Client({ name: 'mcpwire-sse-interop', version: '0.1.0' }, options);
    connection = new SSEClientConnection(everything.url);
    session = await within(client.connect(connection, { timeoutMs: 10_000 }), 15_000, 'initialize over SSE');
  });

  after(async () => {
    await session?.close();
    await everything?.stop();
  });

  test('initialize: server info and the POST endpoint the server named', () => {
    assert.equal(session.serverInfo.name, 'mcp-servers/everything');
    assert.deepEqual(session.serverCapabilities.tools, { listChanged: true });
    // The SDK's SSEServerTransport sends a relative endpoint; it resolves against the SSE URL.
    assert.match(connection.endpoint?.href ?? '', /^http:\/\/127\.0\.0\.1:\d+\/message\?sessionId=[\w-]+$/);
  });

  test('tools/list has echo, get-sum and the tools for our roots and sampling', async () => {
    const names: string[] = [];
    for await (const tool of session.tools()) names.push(tool.name);
    for (const name of [
      'echo',
      'get-sum',
      'trigger-long-running-operation',
      'get-roots-list',
      'trigger-sampling-request',
    ]) {
      assert.ok(names.includes(name), `tools/list lacks ${name}: ${names.join(', ')}`);
    }
  });

  test('callTool: echo and get-sum', async () => {
    const echo = await session.callTool('echo', { message: 'hello over SSE' });
    assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: hello over SSE' }]);
    const sum = await session.callTool('get-sum', { a: 2, b: 40 });
    assert.deepEqual(sum.content, [{ type: 'text', text: 'The sum of 2 and 40 is 42.' }]);
  });

  test('roots: get-roots-list is answered from our roots', async () => {
    const result = await session.callTool('get-roots-list');
    assert.match(
      toolText(result),
      /^Current MCP Roots \(1 total\):\n\n1\. project\n {3}URI: file:\/\/\/work\/project\n/,
    );
  });

  test('sampling: trigger-sampling-request is answered by our handler', async () => {
    samplingRequests.length = 0;
    const result = await session.callTool('trigger-sampling-request', {
      prompt: 'What is 6 x 7?',
      maxTokens: 50,
    });
    assert.equal(samplingRequests.length, 1);
    assert.deepEqual(samplingRequests[0]?.messages, [
      {
        role: 'user',
        content: { type: 'text', text: 'Resource trigger-sampling-request context: What is 6 x 7?' },
      },
    ]);
    const body = toolText(result);
    assert.ok(body.startsWith('LLM sampling result: \n'), body);
    assert.deepEqual(JSON.parse(body.slice('LLM sampling result: \n'.length)).content, {
      type: 'text',
      text: 'Sampled by mcpwire over SSE',
    });
  });

  test('trigger-long-running-operation: progress in order, then the result', async () => {
    const events: Array<Progress | 'result'> = [];
    const result = await session.callTool(
      'trigger-long-running-operation',
      { duration: 0.2, steps: 4 },
      { onprogress: (progress) => events.push(progress) },
    );
    events.push('result');
    assert.deepEqual(
      events.map((e) => (e === 'result' ? e : [e.progress, e.total])),
      [[1, 4], [2, 4], [3, 4], [4, 4], 'result'],
    );
    assert.equal(toolText(result), 'Long running operation completed. Duration: 0.2 seconds, Steps: 4.');
  });

  test('ping, and nothing reported on our side', async () => {
    await session.ping();
    assert.deepEqual(errors, []);
  });
});
