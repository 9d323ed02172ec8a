// Our Client over our legacy HTTP+SSE client transport against @modelcontextprotocol/server-everything
// in its `sse` mode (the official SDK's SSEServerTransport behind express): a server no one here wrote.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, type ClientSession } from '../../src/client/index.js';
import type { CreateMessageRequestParams } from '../../src/protocol/types.js';
import type { Progress } from '../../src/session/session.js';
import { SseClientConnection } from '../../src/transport/sse/client.js';

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

/** Rejects with `label` when `promise` has not settled within `ms`. */
function within<T>(promise: Promise<T>, ms: number, label: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms waiting for ${label}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function text(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}

/** A TCP port that was free a moment ago. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

describe('mcpwire Client over SseClientConnection ↔ server-everything (sse)', () => {
  let child: ChildProcess;
  let connection: SseClientConnection;
  let session: ClientSession;
  let stderr = '';
  const errors: Error[] = [];
  const samplingRequests: CreateMessageRequestParams[] = [];

  before(async () => {
    assert.ok(
      existsSync(EVERYTHING),
      `${EVERYTHING} is missing: is @modelcontextprotocol/server-everything installed?`,
    );
    const port = await freePort();
    child = spawn(process.execPath, [EVERYTHING, 'sse'], {
      env: { PATH: process.env.PATH ?? '', PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    await within(
      new Promise<void>((resolve, reject) => {
        child.stderr?.setEncoding('utf8');
        child.stderr?.on('data', (chunk: string) => {
          stderr += chunk;
          if (stderr.includes(`running on port ${port}`)) resolve();
        });
        child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${stderr}`)));
      }),
      15_000,
      'server-everything to listen',
    );

    const client = new Client(
      { name: 'mcpwire-sse-interop', version: '0.1.0' },
      {
        requestTimeout: 10_000,
        onerror: (err) => errors.push(err),
        roots: [{ uri: 'file:///work/project', name: 'project' }],
        sampling: (params) => {
          samplingRequests.push(params);
          return {
            role: 'assistant',
            content: { type: 'text', text: 'Sampled by mcpwire over SSE' },
            model: 'mcpwire-test-model',
            stopReason: 'endTurn',
          };
        },
      },
    );
    // It listens on every interface; the test speaks to loopback only.
    connection = new SseClientConnection(`http://127.0.0.1:${port}/sse`);
    session = await within(client.connect(connection, { timeout: 10_000 }), 15_000, 'initialize over SSE');
  });

  after(async () => {
    await session?.close();
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await within(exited, 5000, 'server-everything to exit').catch(() => child.kill('SIGKILL'));
    }
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
      text(result),
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
    const body = text(result);
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
    assert.equal(text(result), 'Long running operation completed. Duration: 0.2 seconds, Steps: 4.');
  });

  test('ping, and nothing reported on our side', async () => {
    await session.ping();
    assert.deepEqual(errors, []);
  });
});
