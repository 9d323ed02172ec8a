import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { writeJsonError } from '../../http/json-error.js';
import { fromNode } from '../../http/node-adapter.js';
import { StreamableHTTPHandler } from '../../server/http/streamable-http-handler.js';
import { Server } from '../../server/server.js';
import { LegacySSEHandler } from '../../server/sse/legacy-sse-handler.js';
import { type LoopbackServer, listenLoopback } from '../../test-support/http-loopback.js';
import { error, scriptedServer, sendJson } from '../../test-support/scripted-http.js';
import { within } from '../../test-support/time-limit.js';
import { toolText } from '../../test-support/tool-text.js';
import { Client } from '../client.js';
import { connectUrl } from './connect-url.js';

/*
 * connectUrl's verdict per endpoint (spec 2026-07-28 §negotiation): kept for the process, given by the caller
 * as `prior`, and dropped when it proves wrong; and an error that says what each step of the ladder answered.
 * Every test uses its own port, so the process-wide cache never carries over between them.
 */

const client = new Client(
  { name: 'era-test', version: '1' },
  { requestTimeoutMs: 5000, probeTimeoutMs: 3000 },
);

function echoServer() {
  const server = new Server({ name: 'era', version: '1' });
  server.tool(
    { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    (args) => ({ content: [{ type: 'text', text: String(args.text) }] }),
  );
  return server;
}

/** Our server at /mcp (Streamable HTTP, eras switchable) and /sse + /messages; records each request. */
describe('connectUrl keeps the verdict, and drops it when it proves wrong', () => {
  const server = echoServer();
  const handlers = {
    both: new StreamableHTTPHandler(server),
    legacy: new StreamableHTTPHandler(server, { eras: 'legacy' }),
    modern: new StreamableHTTPHandler(server, { eras: 'modern' }),
  };
  const sse = new LegacySSEHandler(server);
  let serving: keyof typeof handlers = 'both';
  const seen: string[] = [];
  let http: LoopbackServer;
  let base: string;

  before(async () => {
    http = await listenLoopback((req, res) => {
      const exchange = fromNode(req, res);
      if (exchange.path === '/mcp') handlers[serving].handle(exchange);
      else
        sse.handle(exchange).then((served) => {
          if (!served) writeJsonError(exchange, 404, 'Not Found');
        });
    });
    base = `http://127.0.0.1:${http.port}`;
  });

  after(async () => {
    await Promise.all([...Object.values(handlers).map((h) => h.close({ deadlineMs: 1000 })), sse.close()]);
    await server.close();
    await http.close();
  });

  /** What the client asked, as `HTTP-method path [JSON-RPC method]`: recorded at its fetch. */
  const recording: typeof fetch = (input, init) => {
    const url = new URL(String(input));
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : undefined;
    seen.push(
      `${init?.method ?? 'GET'} ${url.pathname}${url.search}${body?.method ? ` ${body.method}` : ''}`,
    );
    return fetch(input, init);
  };

  async function connectOnce(path: string, options = {}) {
    seen.length = 0;
    const session = await within(
      connectUrl(client, `${base}${path}`, { fetch: recording, ...options }),
      10_000,
      'connect',
    );
    const requests = seen.slice();
    await session.close();
    return { session, requests };
  }

  test('a legacy verdict: the second connect goes straight to initialize', async () => {
    serving = 'legacy';
    const first = await connectOnce('/mcp?legacy');
    assert.equal(first.session.era, 'legacy');
    assert.deepEqual(first.requests.slice(0, 2), [
      'POST /mcp?legacy server/discover',
      'POST /mcp?legacy initialize',
    ]);
    const second = await connectOnce('/mcp?legacy');
    assert.equal(second.requests[0], 'POST /mcp?legacy initialize');
    assert.ok(!second.requests.some((r) => r.includes('server/discover')), second.requests.join('\n'));
  });

  test('an HTTP+SSE verdict: the second connect opens with the GET', async () => {
    const first = await connectOnce('/sse');
    assert.deepEqual(first.requests.slice(0, 3), [
      'POST /sse server/discover',
      'POST /sse initialize',
      'GET /sse',
    ]);
    const second = await connectOnce('/sse');
    assert.equal(second.requests[0], 'GET /sse');
  });

  test('`prior` skips the probe on an endpoint never seen', async () => {
    const { requests } = await connectOnce('/sse?fresh', {
      prior: { era: 'legacy', transport: 'sse', at: Date.now() },
    });
    assert.equal(requests[0], 'GET /sse?fresh');
  });

  test('a modern verdict: one discover (it carries the capabilities), no initialize', async () => {
    serving = 'both';
    await connectOnce('/mcp?modern');
    const { session, requests } = await connectOnce('/mcp?modern');
    assert.equal(session.era, 'modern');
    assert.deepEqual(requests, ['POST /mcp?modern server/discover']);
  });

  test('a cached modern verdict on a server that became legacy-only: probed afresh, and it works', async () => {
    serving = 'both';
    const first = await connectOnce('/mcp?downgraded');
    assert.equal(first.session.era, 'modern');
    serving = 'legacy';
    seen.length = 0;
    const session = await within(
      connectUrl(client, `${base}/mcp?downgraded`, { fetch: recording }),
      10_000,
      'connect',
    );
    try {
      assert.equal(session.era, 'legacy');
      assert.equal(toolText(await session.callTool('echo', { text: 'again' })), 'again');
      assert.ok(seen.includes('POST /mcp?downgraded initialize'), seen.join('\n'));
      assert.equal(session.verdict.era, 'legacy');
    } finally {
      await session.close();
    }
  });

  test('a cached legacy verdict on a server that became modern-only: probed afresh, modern', async () => {
    serving = 'legacy';
    await connectOnce('/mcp?upgraded');
    serving = 'modern';
    const { session, requests } = await connectOnce('/mcp?upgraded');
    assert.equal(session.era, 'modern');
    assert.deepEqual(requests.slice(0, 2), [
      'POST /mcp?upgraded initialize',
      'POST /mcp?upgraded server/discover',
    ]);
  });
});

describe('the error after the ladder says what each step answered', () => {
  test('garbage to discover, then a 500 to initialize: both named, and no GET', async () => {
    const server = await scriptedServer((h, res) => {
      if (h.message?.method === 'server/discover')
        res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>proxy</h1>');
      else res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream down');
    });
    try {
      await assert.rejects(within(connectUrl(client, server.url), 10_000, 'connect'), (err: Error) => {
        assert.match(
          err.message,
          /server\/discover got HTTP 200 with a body that is no JSON-RPC answer \(text\/html\)/,
        );
        assert.match(err.message, /then initialize failed: HTTP 500/);
        return true;
      });
      assert.deepEqual(server.gets(), []);
    } finally {
      await server.close();
    }
  });

  test("a modern error in the body of initialize's 400 stops the ladder before the GET", async () => {
    const server = await scriptedServer((h, res) => {
      if (h.message?.method === 'server/discover') res.writeHead(200).end();
      else sendJson(res, error(h.message?.id ?? null, -32020, 'header mismatch'), 400);
    });
    try {
      await assert.rejects(
        within(connectUrl(client, server.url), 10_000, 'connect'),
        /server\/discover got HTTP 200 with an empty body/,
      );
      assert.deepEqual(server.gets(), []);
    } finally {
      await server.close();
    }
  });

  test('a plain 405 to initialize falls back to the GET, and all three answers are named', async () => {
    const server = await scriptedServer((h, res) => {
      if (h.httpMethod === 'GET') res.writeHead(404).end('no such stream');
      else if (h.message?.method === 'server/discover')
        sendJson(res, error(null, -32700, 'Parse error'), 400);
      else res.writeHead(405).end();
    });
    try {
      await assert.rejects(within(connectUrl(client, server.url), 10_000, 'connect'), (err: Error) => {
        assert.ok(err instanceof AggregateError);
        assert.match(err.message, /server\/discover got HTTP 400 with JSON-RPC error -32700/);
        assert.match(err.message, /initialize got HTTP 405/);
        assert.match(err.message, /the HTTP\+SSE GET got .*404/);
        return true;
      });
      assert.equal(server.gets().length, 1);
    } finally {
      await server.close();
    }
  });
});
