import assert from 'node:assert/strict';
import { type IncomingMessage, request } from 'node:http';
import { describe, test } from 'node:test';
import { defaultLoopbackPolicy } from '../../http/guards.js';
import { fromNode } from '../../http/node-adapter.js';
import { ProtectedResource, type TokenGrant } from '../../http/protected-resource.js';
import { fromWeb } from '../../http/web-adapter.js';
import { listenLoopback } from '../../test-support/http-loopback.js';
import { Server } from '../server.js';
import { LegacySSEHandler, type LegacySSEHandlerOptions } from './legacy-sse-handler.js';

interface SSEEventSeen {
  event: string;
  data: string;
}

/** An open legacy SSE stream as a client sees it: the response, the raw text, and its events in order. */
interface OpenStream {
  res: IncomingMessage;
  raw: () => string;
  next: (ms?: number) => Promise<SSEEventSeen>;
  ended: Promise<void>;
  close: () => void;
}

function openStream(port: number, headers: Record<string, string> = { accept: 'text/event-stream' }) {
  return new Promise<OpenStream>((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', path: '/sse', headers }, (res) => {
      let raw = '';
      let pending = '';
      const events: SSEEventSeen[] = [];
      const waiters: ((e: SSEEventSeen) => void)[] = [];
      res.setEncoding('utf8');
      const ended = new Promise<void>((done) => res.on('close', done));
      res.on('data', (chunk: string) => {
        raw += chunk;
        pending += chunk;
        for (let end = pending.indexOf('\n\n'); end !== -1; end = pending.indexOf('\n\n')) {
          const block = pending.slice(0, end);
          pending = pending.slice(end + 2);
          const e: SSEEventSeen = { event: 'message', data: '' };
          let isComment = true;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            isComment = false;
            if (line.startsWith('event: ')) e.event = line.slice(7);
            else if (line.startsWith('data: ')) e.data += line.slice(6);
          }
          if (isComment) continue;
          const waiter = waiters.shift();
          if (waiter) waiter(e);
          else events.push(e);
        }
      });
      resolve({
        res,
        raw: () => raw,
        ended,
        close: () => req.destroy(),
        next: (ms = 5000) =>
          new Promise((got, fail) => {
            const e = events.shift();
            if (e) {
              got(e);
              return;
            }
            const timer = setTimeout(() => fail(new Error(`no SSE event within ${ms} ms`)), ms);
            waiters.push((ev) => {
              clearTimeout(timer);
              got(ev);
            });
          }),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function send(
  port: number,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' },
) {
  return new Promise<Reply>((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Asserts a refusal: the status and a JSON-RPC error body with `code` whose message matches `message`. */
function assertRefused(reply: Reply, status: number, code: number, message: RegExp, id: unknown = null) {
  assert.equal(reply.status, status, reply.text);
  assert.equal(reply.headers['content-type'], 'application/json');
  const body = JSON.parse(reply.text);
  assert.equal(body.jsonrpc, '2.0');
  assert.equal(body.id, id);
  assert.equal(body.error.code, code);
  assert.match(body.error.message, message);
}

function testServer(): Server {
  const server = new Server({ name: 'sse-test', version: '1.0.0' });
  server.tool(
    {
      name: 'add',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
    },
    (args) => ({ content: [{ type: 'text', text: String((args.a as number) + (args.b as number)) }] }),
  );
  return server;
}

/** A handler on a loopback port; `principal` (when given) sets each exchange's principal from a request. */
async function serve(
  options: Partial<LegacySSEHandlerOptions> = {},
  principal?: (req: IncomingMessage) => unknown,
) {
  const errors: Error[] = [];
  const handler = new LegacySSEHandler(testServer(), {
    keepAliveMs: 0,
    onerror: (err) => errors.push(err),
    ...options,
  });
  const listener = handler.node();
  const http = await listenLoopback(
    principal === undefined
      ? listener
      : (req, res) => {
          const exchange = fromNode(req, res);
          exchange.principal = principal(req);
          handler.handle(exchange).then((handled) => {
            if (!handled) res.writeHead(404).end();
          });
        },
  );
  return {
    handler,
    port: http.port,
    errors,
    async close() {
      await handler.close();
      await http.close();
    },
  };
}

const SESSION_URI = /^\/messages\?sessionId=([A-Za-z0-9_-]+)$/;

async function openSession(port: number, headers?: Record<string, string>) {
  const stream = await openStream(port, headers);
  const endpoint = await stream.next();
  assert.equal(endpoint.event, 'endpoint');
  return { stream, uri: endpoint.data };
}

function initialize(id: number, protocolVersion = '2024-11-05') {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
}

async function until(check: () => boolean, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms: ${check}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('LegacySSEHandler: the SSE stream', () => {
  test('GET /sse answers 200 SSE and the first event is endpoint with a 128-bit session id', async () => {
    const s = await serve();
    try {
      const stream = await openStream(s.port);
      assert.equal(stream.res.statusCode, 200);
      assert.equal(stream.res.headers['content-type'], 'text/event-stream');
      const endpoint = await stream.next();
      assert.equal(endpoint.event, 'endpoint');
      // Nothing precedes the endpoint event on the wire.
      assert.ok(stream.raw().startsWith(`event: endpoint\ndata: ${endpoint.data}\n\n`), stream.raw());
      const id = SESSION_URI.exec(endpoint.data)?.[1];
      assert.ok(id, endpoint.data);
      assert.ok(Buffer.from(id, 'base64url').length >= 16, `${id} carries fewer than 128 bits`);
      const other = await openSession(s.port);
      assert.notEqual(other.uri, endpoint.data);
      assert.equal(s.handler.sessionCount, 2);
    } finally {
      await s.close();
    }
  });

  test('messagesPath sets the endpoint URI, and the stream is served at ssePath', async () => {
    const s = await serve({ messagesPath: '/legacy/post' });
    try {
      const { uri } = await openSession(s.port);
      assert.match(uri, /^\/legacy\/post\?sessionId=[A-Za-z0-9_-]{22}$/);
    } finally {
      await s.close();
    }
  });

  test('POST answers 202 Accepted and the answer arrives as a message event', async () => {
    const s = await serve();
    try {
      const { stream, uri } = await openSession(s.port);
      const accepted = await send(s.port, 'POST', uri, initialize(1));
      assert.equal(accepted.status, 202);
      assert.equal(accepted.text, 'Accepted');
      const answer = await stream.next();
      assert.equal(answer.event, 'message');
      const response = JSON.parse(answer.data);
      assert.equal(response.id, 1);
      assert.equal(response.result.protocolVersion, '2024-11-05');
      assert.equal(response.result.serverInfo.name, 'sse-test');
    } finally {
      await s.close();
    }
  });

  test('several requests at once: each answer is correlated with its request', async () => {
    const s = await serve();
    try {
      const { stream, uri } = await openSession(s.port);
      await send(s.port, 'POST', uri, initialize(0));
      await stream.next();
      const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
      assert.equal((await send(s.port, 'POST', uri, initialized)).status, 202);
      const calls = Array.from({ length: 10 }, (_, i) => ({
        jsonrpc: '2.0',
        id: `call-${i}`,
        method: 'tools/call',
        params: { name: 'add', arguments: { a: i, b: 100 } },
      }));
      const replies = await Promise.all(calls.map((c) => send(s.port, 'POST', uri, JSON.stringify(c))));
      for (const reply of replies) assert.equal(reply.status, 202);
      const answers = new Map<string, string>();
      for (let i = 0; i < calls.length; i++) {
        const m = JSON.parse((await stream.next()).data);
        answers.set(m.id, m.result.content[0].text);
      }
      for (let i = 0; i < calls.length; i++) assert.equal(answers.get(`call-${i}`), String(i + 100));
    } finally {
      await s.close();
    }
  });

  test("a tool handler sees its POST's headers in ctx.transport.headers, beside the principal", async () => {
    const s = await serve({}, () => 'alice');
    s.handler.server.tool({ name: 'headers', inputSchema: { type: 'object' } }, (_args, ctx) => ({
      content: [
        {
          type: 'text',
          text: JSON.stringify([ctx.transport?.headers?.['x-custom'], ctx.transport?.principal]),
        },
      ],
    }));
    try {
      const { stream, uri } = await openSession(s.port);
      await send(s.port, 'POST', uri, initialize(0));
      await stream.next();
      await send(
        s.port,
        'POST',
        uri,
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      );
      for (const value of ['one', 'two']) {
        const call = {
          jsonrpc: '2.0',
          id: value,
          method: 'tools/call',
          params: { name: 'headers', arguments: {} },
        };
        await send(s.port, 'POST', uri, JSON.stringify(call), {
          'content-type': 'application/json',
          'X-Custom': value,
        });
        const answer = JSON.parse((await stream.next()).data);
        assert.deepEqual(JSON.parse(answer.result.content[0].text), [value, 'alice']);
      }
    } finally {
      await s.close();
    }
  });

  test('a batch reaches the session, which decides by version (refused before initialize)', async () => {
    const s = await serve();
    try {
      const { stream, uri } = await openSession(s.port);
      const batch = JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: 2, method: 'ping' },
      ]);
      assert.equal((await send(s.port, 'POST', uri, batch)).status, 202);
      const answer = JSON.parse((await stream.next()).data);
      assert.equal(answer.error.code, -32600);
      assert.match(answer.error.message, /batches are not accepted before initialization/);
    } finally {
      await s.close();
    }
  });

  test('closing the GET closes the session and forgets it', async () => {
    const s = await serve();
    try {
      const { stream, uri } = await openSession(s.port);
      await send(s.port, 'POST', uri, initialize(1));
      await stream.next();
      assert.equal(s.handler.sessionCount, 1);
      assert.equal(s.handler.server.sessions.size, 1);
      const [session] = s.handler.server.sessions;
      stream.close();
      await until(() => s.handler.sessionCount === 0);
      assert.equal(s.handler.server.sessions.size, 0);
      assert.equal(session.isClosed, true);
      assertRefused(await send(s.port, 'POST', uri, initialize(2)), 404, -32000, /no such session/);
    } finally {
      await s.close();
    }
  });

  test('the server closing a session ends its stream', async () => {
    const s = await serve();
    try {
      const { stream } = await openSession(s.port);
      const [session] = s.handler.server.sessions;
      await session.close();
      await stream.ended;
      assert.equal(s.handler.sessionCount, 0);
    } finally {
      await s.close();
    }
  });

  test('close() ends every stream, closes every session and refuses new ones with 503', async () => {
    const s = await serve();
    try {
      const a = await openSession(s.port);
      const b = await openSession(s.port);
      await s.handler.close();
      await Promise.all([a.stream.ended, b.stream.ended]);
      assert.equal(s.handler.sessionCount, 0);
      assert.equal(s.handler.server.sessions.size, 0);
      const refused = await send(s.port, 'GET', '/sse', undefined, { accept: 'text/event-stream' });
      assertRefused(refused, 503, -32000, /shutting down/);
    } finally {
      await s.close();
    }
  });
});

describe('LegacySSEHandler: refusals, each with its status and a JSON-RPC error body', () => {
  test('past rateLimit a caller gets 429 with Retry-After: the GET and each POST count', async () => {
    const s = await serve({ rateLimit: { requests: 2 } });
    try {
      const session = await openSession(s.port);
      const ping = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
      assert.equal((await send(s.port, 'POST', session.uri, initialize(1))).status, 202);
      const refused = await send(s.port, 'POST', session.uri, ping);
      assertRefused(
        refused,
        429,
        -32000,
        /^Too Many Requests: the anonymous clients at 127\.0\.0\.1 sent the maximum of 2 requests in 60 s/,
      );
      assert.ok(Number(refused.headers['retry-after']) >= 1);
      session.stream.close();
    } finally {
      await s.close();
    }
  });

  test('POST without sessionId → 400; unknown sessionId → 404', async () => {
    const s = await serve();
    try {
      const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
      assertRefused(await send(s.port, 'POST', '/messages', ping), 400, -32000, /sessionId query parameter/);
      assertRefused(await send(s.port, 'POST', '/messages?sessionId=', ping), 400, -32000, /sessionId/);
      assertRefused(
        await send(s.port, 'POST', '/messages?sessionId=nope', ping),
        404,
        -32000,
        /Not Found: no such session/,
      );
      assert.equal(s.errors.length, 3);
    } finally {
      await s.close();
    }
  });

  test('a response that answers no request of the session → 400 with -32600; nothing reaches the session', async () => {
    const s = await serve();
    try {
      const { uri } = await openSession(s.port);
      assert.equal((await send(s.port, 'POST', uri, initialize(1))).status, 202);
      const stray = JSON.stringify({ jsonrpc: '2.0', id: 0, result: {} });
      assertRefused(
        await send(s.port, 'POST', uri, stray),
        400,
        -32600,
        /the response with id 0 answers nothing; this session sent no request with that id/,
      );
      const unreadable = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'x' } });
      assert.equal((await send(s.port, 'POST', uri, unreadable)).status, 202);
    } finally {
      await s.close();
    }
  });

  test('an invalid answer to a request of the session → 400 with -32600; that request fails at once saying why', async () => {
    const s = await serve();
    s.handler.server.tool({ name: 'ask', inputSchema: { type: 'object' } }, async (_args, ctx) => {
      await ctx.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: '?' } }],
        maxTokens: 5,
      });
      return { content: [] };
    });
    try {
      const { stream, uri } = await openSession(s.port);
      const init = JSON.parse(initialize(1));
      init.params.capabilities = { sampling: {} };
      assert.equal((await send(s.port, 'POST', uri, JSON.stringify(init))).status, 202);
      await stream.next();
      const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask', arguments: {} } };
      assert.equal((await send(s.port, 'POST', uri, JSON.stringify(call))).status, 202);
      const asked = JSON.parse((await stream.next()).data);
      assert.equal(asked.method, 'sampling/createMessage');
      assertRefused(
        await send(s.port, 'POST', uri, JSON.stringify({ jsonrpc: '2.0', id: asked.id, result: 'no' })),
        400,
        -32600,
        /"result" must be an object/,
        asked.id,
      );
      const failed = JSON.parse((await stream.next()).data);
      assert.equal(failed.id, 2);
      assert.equal(failed.error.code, -32603);
      assert.match(
        failed.error.message,
        /^The answer to "sampling\/createMessage" is not a valid JSON-RPC response/,
      );
    } finally {
      await s.close();
    }
  });

  test('Content-Type other than application/json → 415', async () => {
    const s = await serve();
    try {
      const { uri } = await openSession(s.port);
      const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
      assertRefused(
        await send(s.port, 'POST', uri, ping, { 'content-type': 'text/plain' }),
        415,
        -32000,
        /Unsupported Media Type/,
      );
      assert.equal(
        (await send(s.port, 'POST', uri, ping, { 'content-type': 'application/json; charset=utf-8' })).status,
        202,
      );
    } finally {
      await s.close();
    }
  });

  test('invalid JSON → 400 with -32700; a wrong shape → 400 with -32600 and the id', async () => {
    const s = await serve();
    try {
      const { uri } = await openSession(s.port);
      assertRefused(await send(s.port, 'POST', uri, '{"jsonrpc":'), 400, -32700, /^Parse error/);
      assertRefused(
        await send(s.port, 'POST', uri, '{"jsonrpc":"2.0","id":7,"method":5}'),
        400,
        -32600,
        /"method" must be a string/,
        7,
      );
      assert.equal(s.handler.sessionCount, 1);
    } finally {
      await s.close();
    }
  });

  test('a body over maxBodyBytes → 413', async () => {
    const s = await serve({ maxBodyBytes: 64 });
    try {
      const { uri } = await openSession(s.port);
      const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(100) } });
      assertRefused(await send(s.port, 'POST', uri, big), 413, -32000, /Payload Too Large.*64 bytes/);
    } finally {
      await s.close();
    }
  });

  test('GET whose Accept does not list text/event-stream → 406', async () => {
    const s = await serve();
    try {
      assertRefused(
        await send(s.port, 'GET', '/sse', undefined, { accept: 'application/json' }),
        406,
        -32000,
        /Not Acceptable/,
      );
      assert.equal(s.handler.sessionCount, 0);
    } finally {
      await s.close();
    }
  });

  test('GET with no Accept, or */*, opens a stream: 2024-11-05 clients were never told to send one', async () => {
    const s = await serve();
    try {
      for (const headers of [{}, { accept: '*/*' }] as Record<string, string>[]) {
        const res = await fetch(`http://127.0.0.1:${s.port}/sse`, { headers });
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
        await res.body?.cancel();
      }
    } finally {
      await s.close();
    }
  });

  test('past maxSessions a new GET → 503, and a session ending makes room', async () => {
    const s = await serve({ maxSessions: 1 });
    try {
      const first = await openSession(s.port);
      const refused = await send(s.port, 'GET', '/sse', undefined, { accept: 'text/event-stream' });
      assertRefused(refused, 503, -32000, /limit of 1 sessions/);
      first.stream.close();
      await until(() => s.handler.sessionCount === 0);
      await openSession(s.port);
    } finally {
      await s.close();
    }
  });

  test('other methods on the two paths → 405 with Allow', async () => {
    const s = await serve();
    try {
      const onSse = await send(s.port, 'POST', '/sse', '{}');
      assertRefused(onSse, 405, -32000, /Method Not Allowed/);
      assert.equal(onSse.headers.allow, 'GET');
      const onMessages = await send(s.port, 'GET', '/messages');
      assertRefused(onMessages, 405, -32000, /Method Not Allowed/);
      assert.equal(onMessages.headers.allow, 'POST');
      assert.equal((await send(s.port, 'DELETE', '/sse')).headers.allow, 'GET');
    } finally {
      await s.close();
    }
  });

  test('one path for both: GET opens the stream, POST takes messages, others → 405 GET, POST', async () => {
    const s = await serve({ ssePath: '/legacy', messagesPath: '/legacy' });
    try {
      const stream = await new Promise<Reply>((resolve) => {
        request(
          { port: s.port, host: '127.0.0.1', path: '/legacy', headers: { accept: 'text/event-stream' } },
          (res) => {
            res.setEncoding('utf8');
            res.once('data', (text: string) => {
              resolve({ status: res.statusCode!, headers: res.headers, text });
              res.destroy();
            });
          },
        ).end();
      });
      assert.equal(stream.status, 200);
      assert.match(stream.text, /^event: endpoint\ndata: \/legacy\?sessionId=/);
      assert.equal((await send(s.port, 'PUT', '/legacy', '{}')).headers.allow, 'GET, POST');
    } finally {
      await s.close();
    }
  });

  test('DNS rebinding with defaultLoopbackPolicy: bad Host → 421, bad Origin → 403, on both paths', async () => {
    // The policy names the port, known only once listening: the listener is set right after.
    let listener: ReturnType<LegacySSEHandler['node']> = () => {};
    const http = await listenLoopback((req, res) => listener(req, res));
    const handler = new LegacySSEHandler(testServer(), {
      keepAliveMs: 0,
      dnsRebindingProtection: defaultLoopbackPolicy(http.port),
    });
    listener = handler.node();
    try {
      const sse = { accept: 'text/event-stream' };
      assertRefused(
        await send(http.port, 'GET', '/sse', undefined, { ...sse, host: 'evil.example' }),
        421,
        -32000,
        /Misdirected Request/,
      );
      assertRefused(
        await send(http.port, 'GET', '/sse', undefined, { ...sse, origin: 'http://evil.example' }),
        403,
        -32000,
        /Forbidden: Origin/,
      );
      assert.equal(handler.sessionCount, 0);
      const { uri } = await openSession(http.port, { ...sse, origin: `http://localhost:${http.port}` });
      const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
      const json = { 'content-type': 'application/json' };
      assertRefused(
        await send(http.port, 'POST', uri, ping, { ...json, host: `evil.example:${http.port}` }),
        421,
        -32000,
        /Misdirected Request/,
      );
      assertRefused(
        await send(http.port, 'POST', uri, ping, { ...json, origin: 'https://evil.example' }),
        403,
        -32000,
        /Forbidden: Origin/,
      );
      assert.equal((await send(http.port, 'POST', uri, ping, json)).status, 202);
    } finally {
      await handler.close();
      await http.close();
    }
  });

  test('a session opened by a principal takes POSTs from that principal only (404 otherwise)', async () => {
    const s = await serve({}, (req) => req.headers['x-user']);
    try {
      const { stream, uri } = await openSession(s.port, { accept: 'text/event-stream', 'x-user': 'alice' });
      const json = { 'content-type': 'application/json' };
      assertRefused(
        await send(s.port, 'POST', uri, initialize(1), { ...json, 'x-user': 'mallory' }),
        404,
        -32000,
        /no such session/,
      );
      assertRefused(await send(s.port, 'POST', uri, initialize(1), json), 404, -32000, /no such session/);
      assert.equal(
        (await send(s.port, 'POST', uri, initialize(1), { ...json, 'x-user': 'alice' })).status,
        202,
      );
      assert.equal(JSON.parse((await stream.next()).data).id, 1);
    } finally {
      await s.close();
    }
  });
});

describe('LegacySSEHandler: beside other handlers', () => {
  test('handle resolves false for other paths and leaves the exchange untouched', async () => {
    const handler = new LegacySSEHandler(testServer());
    for (const target of ['/mcp', '/sse/', '/messagesx?sessionId=a', '/']) {
      const { exchange } = fromWeb(new Request(`http://127.0.0.1${target}`, { method: 'POST', body: '{}' }));
      assert.equal(await handler.handle(exchange), false, target);
      assert.equal(exchange.headWritten, false);
      assert.equal(exchange.closed, false);
    }
  });

  test('node() answers 404 with a JSON-RPC body for other paths', async () => {
    const s = await serve();
    try {
      assertRefused(await send(s.port, 'GET', '/mcp'), 404, -32000, /\/mcp is not served here/);
    } finally {
      await s.close();
    }
  });

  test('fetch(): the same sessions through web-standard Request and Response', async () => {
    const handler = new LegacySSEHandler(testServer(), { keepAliveMs: 0 });
    try {
      const response = await handler.fetch(
        new Request('http://127.0.0.1/sse', { headers: { accept: 'text/event-stream' } }),
      );
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'text/event-stream');
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      const first = decoder.decode((await reader.read()).value);
      const uri = /^event: endpoint\ndata: (.*)\n\n$/.exec(first)?.[1];
      assert.ok(uri, first);
      const accepted = await handler.fetch(
        new Request(`http://127.0.0.1${uri}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: initialize(3),
        }),
      );
      assert.equal(accepted.status, 202);
      assert.equal(await accepted.text(), 'Accepted');
      const answer = decoder.decode((await reader.read()).value);
      assert.match(answer, /^event: message\ndata: \{"jsonrpc":"2.0","id":3,"result":/);
      const other = await handler.fetch(new Request('http://127.0.0.1/elsewhere'));
      assert.equal(other.status, 404);
    } finally {
      await handler.close();
    }
    assert.equal(handler.sessionCount, 0);
  });
});

describe('LegacySSEHandler: with a ProtectedResource', () => {
  test("the GET and every POST need a granted token; the session answers its token's principal only", async () => {
    const grants: Record<string, TokenGrant> = {
      ada: { principal: 'ada', scopes: [] },
      bob: { principal: 'bob', scopes: [] },
    };
    const resource = new ProtectedResource({
      resource: 'http://127.0.0.1/sse',
      authorizationServers: ['https://auth.example.com'],
      verifier: { verify: (token) => grants[token] },
    });
    const handler = new LegacySSEHandler(new Server({ name: 'protected', version: '1' }), { auth: resource });
    const sse = (headers: Record<string, string> = {}) =>
      handler.fetch(
        new Request('http://127.0.0.1/sse', { headers: { accept: 'text/event-stream', ...headers } }),
      );
    try {
      const refused = await sse();
      assert.equal(refused.status, 401);
      assert.equal(
        refused.headers.get('www-authenticate'),
        'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/sse"',
      );
      await refused.text();
      const response = await sse({ authorization: 'Bearer ada' });
      assert.equal(response.status, 200);
      const reader = response.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      const uri = /^event: endpoint\ndata: (.*)\n\n$/.exec(first)?.[1];
      assert.ok(uri, first);
      const post = (token?: string) =>
        handler.fetch(
          new Request(`http://127.0.0.1${uri}`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
            },
            body: initialize(1),
          }),
        );
      assert.equal((await post()).status, 401);
      assert.equal((await post('bob')).status, 404);
      assert.equal((await post('ada')).status, 202);
      await reader.cancel();
    } finally {
      await handler.close();
    }
  });
});
