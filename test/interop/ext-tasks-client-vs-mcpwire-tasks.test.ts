// The official Tasks extension client (@modelcontextprotocol/ext-tasks 0.2.2, over the SDK client 2.4.0 in the
// 2026-07-28 era) against mcpwire's task server: a tool run as a task to its result, a task's elicitation
// answered through the package's input handler (tasks/update), and a cancellation that reaches the tool.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, type RawClientDispatch } from '@modelcontextprotocol/ext-tasks/client';
import { TASKS_EXTENSION } from '../../src/protocol/tasks.js';
import { ACCEPT_BOTH, parseSse } from '../../src/test-support/mcp-http.js';
import { bearer, Gate, serveTaskServer, type TaskServer } from '../../src/test-support/task-server.js';
import { until } from '../../src/test-support/time-limit.js';

const MODERN = '2026-07-28';
const CLIENT_INFO = { name: 'ext-tasks-interop', version: '0.2.2' };
const CAPABILITIES = { elicitation: { form: {} }, extensions: { [TASKS_EXTENSION]: {} } };

/**
 * What ext-tasks asks of its host for 2026 task traffic the SDK's codecs refuse: a request (method, params with
 * the `_meta` the package framed) given a JSON-RPC id and POSTed with the headers a 2026 client mirrors;
 * answered by the response of that id.
 */
function rawDispatch(url: string, token: string): RawClientDispatch {
  let nextId = 1;
  return async (request) => {
    const framed = request as { method: string; params?: Record<string, unknown> };
    const message = { jsonrpc: '2.0', id: `ext-${nextId++}`, ...framed };
    const params = message.params ?? {};
    const name = params.taskId ?? params.name ?? params.uri;
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: ACCEPT_BOTH,
        'mcp-protocol-version': MODERN,
        'mcp-method': message.method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
        ...bearer(token),
      },
      body: JSON.stringify(message),
    });
    const text = await response.text();
    if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) return JSON.parse(text);
    const answer = parseSse(text)
      .map((e) => JSON.parse(e.data))
      .find((m) => m.id === message.id);
    return answer;
  };
}

describe('@modelcontextprotocol/ext-tasks client ↔ mcpwire tasks (2026-07-28)', () => {
  let fx: TaskServer;
  let client: Client;
  let session: ReturnType<typeof createTaskSessionFromClient>;

  before(async () => {
    fx = await serveTaskServer();
    client = new Client(CLIENT_INFO, {
      capabilities: CAPABILITIES,
      versionNegotiation: { mode: { pin: MODERN } },
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(fx.url), { requestInit: { headers: bearer('ada-token') } }),
    );
    session = createTaskSessionFromClient(client, {
      endpointId: 'mcpwire-tasks',
      rawDispatch: rawDispatch(fx.url, 'ada-token'),
      v2RequestFraming: {
        protocolVersion: MODERN,
        clientInfo: CLIENT_INFO,
        clientCapabilities: CAPABILITIES,
      },
      onInputRequest: async (request) => {
        assert.equal(request.kind, 'elicitation');
        return { action: 'accept', content: { name: 'Lin' } } as never;
      },
    });
  });
  after(async () => {
    await session?.close();
    await client?.close();
    await fx?.close();
  });

  test('a tool run as a task settles with its result', async () => {
    fx.gate.open();
    const execution = await session.callTool('gated', {});
    assert.equal(execution.kind, 'task');
    const { outcome } = await execution.settle();
    assert.equal(outcome.status, 'completed');
    assert.deepEqual((outcome as { result: { content: unknown } }).result.content, [
      { type: 'text', text: 'done' },
    ]);
  });

  test('the task’s elicitation reaches the input handler and its answer the tool', async () => {
    const execution = await session.callTool('asks', {});
    const { outcome } = await execution.settle();
    assert.equal(outcome.status, 'completed');
    assert.deepEqual((outcome as { result: { content: unknown } }).result.content, [
      { type: 'text', text: 'Hello, Lin!' },
    ]);
  });

  test('cancel reaches the tool’s signal; the task ends cancelled', async () => {
    fx.gate = new Gate();
    fx.seen.aborted = undefined;
    const execution = await session.callTool('gated', {});
    assert.equal(execution.kind, 'task');
    await execution.cancel();
    const { outcome } = await execution.settle();
    assert.equal(outcome.status, 'cancelled');
    await until(() => fx.seen.aborted !== undefined, 30_000, 'the tool to stop');
    assert.equal(fx.seen.aborted, true);
  });
});
