import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RequestTimeoutError } from '../../peer/errors.js';
import { type DemoHere, serveDemoHere } from '../../test-support/demo-both-transports.js';
import { listenLoopback } from '../../test-support/http-loopback.js';
import { type RunningEverything, startEverything } from '../../test-support/server-everything.js';
import { within } from '../../test-support/time-limit.js';
import { toolText } from '../../test-support/tool-text.js';
import { StreamableHTTPError } from '../http/http-client-errors.js';
import { ModernHTTPClientConnection } from '../http/modern-http-client-connection.js';
import { StreamableHTTPClientConnection } from '../http/streamable-http-client-connection.js';
import { Client } from '../index.js';
import { SSEClientConnection } from '../sse/sse-client-connection.js';
import { connectUrl } from './connect-url.js';

const client = new Client(
  { name: 'connect-url-test', version: '1' },
  { requestTimeoutMs: 10_000, roots: [{ uri: 'file:///work/auto', name: 'auto' }] },
);

/** The demo server as `mcpwire serve` lays it out: Streamable HTTP at /mcp, HTTP+SSE at /sse and /messages. */
describe('connectUrl against our own server', () => {
  let demo: DemoHere;
  let requests: string[];
  let base: string;

  before(async () => {
    demo = await serveDemoHere();
    ({ requests, base } = demo);
  });

  after(() => demo.close());

  test('auto on the dual-era endpoint speaks the modern era after one discover', async () => {
    requests.length = 0;
    const session = await within(connectUrl(client, `${base}/mcp`), 10_000, 'connect');
    try {
      assert.ok(session.connection instanceof ModernHTTPClientConnection);
      assert.equal(session.era, 'modern');
      assert.equal(session.serverInfo.name, 'mcpwire-demo');
      assert.equal(toolText(await session.callTool('echo', { message: 'new' })), 'Echo: new');
      assert.equal(requests[0], 'POST /mcp');
    } finally {
      await session.close();
    }
  });

  test('a legacy client on the same endpoint speaks Streamable HTTP with a session', async () => {
    requests.length = 0;
    const legacyClient = new Client({ name: 'connect-url-test', version: '1' }, { era: 'legacy' });
    const session = await within(connectUrl(legacyClient, `${base}/mcp`), 10_000, 'connect');
    try {
      assert.ok(session.connection instanceof StreamableHTTPClientConnection);
      assert.equal(session.era, 'legacy');
      assert.equal(toolText(await session.callTool('echo', { message: 'old' })), 'Echo: old');
    } finally {
      await session.close();
    }
  });

  test('auto on the legacy /sse falls back after the 405 to POST, on the same URL', async () => {
    requests.length = 0;
    const refusals: StreamableHTTPError[] = [];
    const session = await within(
      connectUrl(client, `${base}/sse`, { onFallback: (err) => refusals.push(err) }),
      10_000,
      'connect',
    );
    try {
      assert.ok(session.connection instanceof SSEClientConnection);
      assert.deepEqual(
        refusals.map((r) => r.status),
        [405],
      );
      // The discover probe and initialize were both refused; then the GET of the legacy transport.
      assert.deepEqual(requests.slice(0, 3), ['POST /sse', 'POST /sse', 'GET /sse']);
      assert.equal(toolText(await session.callTool('echo', { message: 'old' })), 'Echo: old');
      const roots = await session.callTool('list_roots');
      assert.deepEqual(roots.structuredContent, { roots: ['file:///work/auto'] });
    } finally {
      await session.close();
    }
  });

  test("transport 'http' reports the 405 instead of falling back; 'sse' goes straight to the GET", async () => {
    requests.length = 0;
    await assert.rejects(
      within(connectUrl(client, `${base}/sse`, { transport: 'http' }), 10_000, 'connect'),
      (err: StreamableHTTPError) => err instanceof StreamableHTTPError && err.status === 405,
    );
    assert.deepEqual(requests, ['POST /sse', 'POST /sse']);
    requests.length = 0;
    const session = await within(connectUrl(client, `${base}/sse`, { transport: 'sse' }), 10_000, 'connect');
    try {
      assert.equal(requests[0], 'GET /sse');
      await session.ping();
    } finally {
      await session.close();
    }
  });

  test('when the fallback fails too, the error names both refusals', async () => {
    await assert.rejects(within(connectUrl(client, `${base}/nowhere`), 10_000, 'connect'), (err: Error) => {
      assert.ok(err instanceof AggregateError);
      assert.match(err.message, /server\/discover got HTTP 404/);
      assert.match(err.message, /initialize got HTTP 404/);
      assert.match(err.message, /the HTTP\+SSE GET got .*404/);
      return true;
    });
  });
});

test('a 401 to initialize is reported as it is, with no fallback', async () => {
  const methods: string[] = [];
  const http = await listenLoopback((req, res) => {
    methods.push(req.method ?? '');
    res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Unauthorized' } }));
  });
  try {
    await assert.rejects(
      within(connectUrl(client, `http://127.0.0.1:${http.port}/mcp`), 10_000, 'connect'),
      (err: Error) => {
        assert.ok(err instanceof StreamableHTTPError);
        assert.equal(err.status, 401);
        assert.match(err.message, /HTTP 401/);
        return true;
      },
    );
    assert.deepEqual(methods, ['POST']);
  } finally {
    await http.close();
  }
});

test('a server that answers nothing spends timeoutMs on discover: connect fails without sending initialize', async () => {
  const methods: string[] = [];
  // Reads each request and answers none of them; closing the server ends them.
  const http = await listenLoopback((req) => {
    methods.push(`${req.method} ${req.headers['mcp-method'] ?? ''}`);
  });
  try {
    await assert.rejects(
      within(connectUrl(client, `http://127.0.0.1:${http.port}/mcp`, { timeoutMs: 300 }), 10_000, 'connect'),
      (err: Error) => {
        assert.ok(err instanceof RequestTimeoutError, String(err));
        assert.equal(err.method, 'server/discover');
        assert.ok(err.waitedMs > 0 && err.waitedMs <= 300, `waited ${err.waitedMs} ms`);
        return true;
      },
    );
    assert.deepEqual(methods, ['POST server/discover']);
  } finally {
    await http.close();
  }
});

describe('connectUrl auto against server-everything in sse mode (a legacy server no one here wrote)', () => {
  let everything: RunningEverything;

  before(async () => {
    everything = await startEverything('sse');
  });

  after(() => everything?.stop());

  test('falls back to the legacy transport and calls its tools', async () => {
    const refusals: number[] = [];
    const session = await within(
      connectUrl(client, everything.url, { onFallback: (err) => refusals.push(err.status!) }),
      15_000,
      'connect',
    );
    try {
      assert.ok(session.connection instanceof SSEClientConnection);
      assert.equal(session.era, 'legacy');
      assert.deepEqual({ ...session.verdict, at: 0 }, { era: 'legacy', transport: 'sse', at: 0 });
      assert.equal(refusals.length, 1);
      assert.ok([400, 404, 405].includes(refusals[0]), String(refusals[0]));
      assert.equal(session.serverInfo.name, 'mcp-servers/everything');
      const result = await session.callTool('echo', { message: 'auto' });
      assert.match(toolText(result), /auto/);
    } finally {
      await session.close();
    }
  });
});
