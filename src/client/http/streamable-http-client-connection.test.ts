import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  type EventStore as SdkEventStore,
  StreamableHTTPServerTransport,
} from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { McpError } from '../../jsonrpc/errors.js';
import { ConnectionClosedError, InvalidResponseError, SessionExpiredError } from '../../peer/errors.js';
import { StreamableHTTPHandler } from '../../server/http/streamable-http-handler.js';
import { Server } from '../../server/server.js';
import { type LoopbackServer, listenLoopback, readBody } from '../../test-support/http-loopback.js';
import { type RunningEverything, startEverything } from '../../test-support/server-everything.js';
import { toolText } from '../../test-support/tool-text.js';
import { type Clock, systemClock } from '../../util/clock.js';
import { Client, type ClientOptions } from '../client.js';
import type { ClientSession } from '../client-session.js';
import { SessionLostError, StreamableHTTPError } from './http-client-errors.js';
import {
  StreamableHTTPClientConnection,
  type StreamableHTTPClientOptions,
} from './streamable-http-client-connection.js';

// ---- helpers ----

/** One HTTP request the client made, as the server saw it. */
interface Seen {
  method: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const INIT_RESULT = (version = '2025-11-25') => ({
  protocolVersion: version,
  capabilities: { tools: {} },
  serverInfo: { name: 'mock', version: '1' },
});

/**
 * A hand-written Streamable HTTP server: answers initialize (session `mock-session`), notifications with
 * 202, and every other request through `onRequest`; GET through `onGet` (default 405). Records requests.
 */
async function mockServer(hooks: {
  onRequest?: (msg: any, res: ServerResponse, req: IncomingMessage) => void;
  onGet?: (req: IncomingMessage, res: ServerResponse) => void;
  onDelete?: (req: IncomingMessage, res: ServerResponse) => void;
  version?: string;
}) {
  const seen: Seen[] = [];
  const server = await listenLoopback(async (req, res) => {
    const body = req.method === 'POST' ? await readBody(req) : '';
    seen.push({ method: req.method!, headers: req.headers, body, at: performance.now() });
    if (req.method === 'GET') return hooks.onGet ? hooks.onGet(req, res) : res.writeHead(405).end();
    if (req.method === 'DELETE') return hooks.onDelete ? hooks.onDelete(req, res) : res.writeHead(200).end();
    const msg = JSON.parse(body);
    if (msg.method === 'initialize') {
      return json(
        res,
        200,
        { jsonrpc: '2.0', id: msg.id, result: INIT_RESULT(hooks.version) },
        {
          'mcp-session-id': 'mock-session',
        },
      );
    }
    if (!('id' in msg) || !('method' in msg)) return res.writeHead(202).end();
    hooks.onRequest
      ? hooks.onRequest(msg, res, req)
      : json(res, 200, { jsonrpc: '2.0', id: msg.id, result: {} });
  });
  return { server, seen, url: `http://127.0.0.1:${server.port}/mcp` };
}

async function connect(
  url: string,
  options: StreamableHTTPClientOptions = {},
  clientOptions: ClientOptions = {},
): Promise<{ session: ClientSession; conn: StreamableHTTPClientConnection; errors: Error[] }> {
  const errors: Error[] = [];
  const conn = new StreamableHTTPClientConnection(url, options);
  const client = new Client(
    { name: 'mcpwire-test', version: '1.0.0' },
    { onerror: (e) => errors.push(e), ...clientOptions },
  );
  const session = await client.connect(conn);
  return { session, conn, errors };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await sleep(10);
  }
}

// ---- against hand-written mocks ----

describe('Streamable HTTP client against hand-written servers', () => {
  test('sse-retry: waits the retry: interval, resumes with GET + Last-Event-ID, takes the result there, no stray GETs', async () => {
    // The conformance scenario's server: the tool call's stream sends a priming event with retry: 500
    // and closes after 50 ms without the result; a GET (any) gets a priming event, and the result when
    // a call is pending. The standalone GET stays open.
    let closedAt = 0;
    let pending: number | undefined;
    let eventId = 0;
    const streams: ServerResponse[] = [];
    const { server, seen, url } = await mockServer({
      version: '2025-03-26',
      onRequest: (msg, res) => {
        if (msg.method === 'tools/list') {
          return json(res, 200, {
            jsonrpc: '2.0',
            id: msg.id,
            result: { tools: [{ name: 'test_reconnection', inputSchema: { type: 'object' } }] },
          });
        }
        pending = msg.id;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`id: event-${++eventId}\nretry: 500\ndata: \n\n`);
        setTimeout(() => {
          closedAt = performance.now();
          res.end();
        }, 50);
      },
      onGet: (_req, res) => {
        streams.push(res);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`id: event-${++eventId}\nretry: 500\ndata: \n\n`);
        if (pending !== undefined) {
          const result = { content: [{ type: 'text', text: 'Reconnection test completed successfully' }] };
          res.write(
            `event: message\nid: event-${++eventId}\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: pending, result })}\n\n`,
          );
          pending = undefined;
        }
      },
    });
    // The waits the client schedules: the resumption's must be the server's retry:, exactly. Wall time only bounds
    // it from below, as a busy machine delays a timer (an upper bound of 700 ms failed when it did).
    const waits: number[] = [];
    const clock: Clock = {
      ...systemClock,
      setTimeout: (fn, ms) => {
        waits.push(ms);
        return systemClock.setTimeout(fn, ms);
      },
    };
    try {
      const { session, conn, errors } = await connect(url, { clock });
      assert.equal(conn.protocolVersion, '2025-03-26');
      await until(() => seen.some((s) => s.method === 'GET'));
      const result = await session.callTool('test_reconnection', {});
      assert.equal(toolText(result), 'Reconnection test completed successfully');
      await sleep(300);
      const gets = seen.filter((s) => s.method === 'GET');
      assert.equal(gets.length, 2, 'the standalone GET and one resumption, nothing more');
      assert.equal(gets[0].headers['last-event-id'], undefined);
      assert.equal(gets[1].headers['last-event-id'], 'event-2', 'the last id seen on the tool call stream');
      assert.deepEqual(waits, [500], 'one wait before resuming, the retry: the server sent');
      const waited = gets[1].at - closedAt;
      assert.ok(waited >= 490, `resumed ${waited.toFixed(0)} ms after the close`);
      // Every request after initialize carries the session id and the negotiated version.
      for (const s of seen.slice(1)) {
        assert.equal(s.headers['mcp-session-id'], 'mock-session', `${s.method} ${s.body}`);
        assert.equal(s.headers['mcp-protocol-version'], '2025-03-26');
      }
      for (const s of seen.filter((r) => r.method === 'POST')) {
        assert.equal(s.headers.accept, 'application/json, text/event-stream');
        assert.equal(s.headers['content-type'], 'application/json');
      }
      assert.equal(seen[0].headers['mcp-session-id'], undefined);
      assert.deepEqual(errors, []);
      await session.close();
      assert.equal(seen.at(-1)?.method, 'DELETE');
    } finally {
      for (const s of streams) s.destroy();
      await server.close();
    }
  });

  test('a GET answered 405 means no standalone stream: POSTs keep working, nothing reported', async () => {
    const { server, seen, url } = await mockServer({});
    try {
      const { session, errors } = await connect(url);
      await session.ping();
      await sleep(50);
      await session.ping();
      assert.equal(seen.filter((s) => s.method === 'GET').length, 1);
      assert.deepEqual(errors, []);
      await session.close();
    } finally {
      await server.close();
    }
  });

  test('tolerates 200 with a JSON body to a notification and 400 on the GET (the initialize mock)', async () => {
    // Answers notifications the way the conformance initialize mock does, and keeps no sessions.
    const seen: Seen[] = [];
    const plain = await listenLoopback(async (req, res) => {
      const body = req.method === 'POST' ? await readBody(req) : '';
      seen.push({ method: req.method!, headers: req.headers, body, at: performance.now() });
      if (req.method === 'GET')
        return json(res, 400, { jsonrpc: '2.0', error: { code: -32700, message: 'x' } });
      const msg = JSON.parse(body);
      if (msg.method === 'initialize')
        return json(res, 200, { jsonrpc: '2.0', id: msg.id, result: INIT_RESULT() });
      json(res, 200, { jsonrpc: '2.0', id: msg.id, result: {} });
    });
    try {
      const { session, conn, errors } = await connect(`http://127.0.0.1:${plain.port}/mcp`);
      assert.equal(conn.sessionId, undefined);
      await session.ping();
      await sleep(30);
      assert.deepEqual(errors, []);
      assert.equal(seen.filter((s) => s.method === 'GET').length, 1);
      assert.equal(seen[1].headers['mcp-session-id'], undefined, 'no session id when the server gave none');
      await session.close();
      assert.equal(seen.filter((s) => s.method === 'DELETE').length, 0, 'no session, nothing to DELETE');
    } finally {
      await plain.close();
    }
  });

  test('the standalone GET stream is reopened with Last-Event-ID when its connection drops', async () => {
    const lastEventIds: (string | undefined)[] = [];
    const { server, url } = await mockServer({
      onGet: (req, res) => {
        const n = lastEventIds.push(req.headers['last-event-id'] as string | undefined);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const note = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };
        res.write(`retry: 20\nid: g${n}\ndata: ${JSON.stringify(note)}\n\n`);
        // The first connection drops, the second stays.
        if (n === 1) setTimeout(() => res.destroy(), 10);
      },
    });
    try {
      const { session, errors } = await connect(url);
      let changes = 0;
      session.on('toolsChanged', () => {
        changes++;
      });
      await until(() => changes === 2);
      assert.deepEqual(lastEventIds, [undefined, 'g1']);
      assert.deepEqual(errors, []);
      await session.close();
    } finally {
      await server.close();
    }
  });

  test('a refused POST rejects the request with the status and the server’s own message', async () => {
    const { server, url } = await mockServer({
      onRequest: (msg, res) =>
        json(res, 400, { jsonrpc: '2.0', id: msg.id, error: { code: -32600, message: 'Bad Request: nope' } }),
    });
    try {
      const { session } = await connect(url);
      const err = await session.ping().then(
        () => assert.fail('ping succeeded'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof StreamableHTTPError);
      assert.equal(err.status, 400);
      assert.match(err.message, /HTTP 400.*request "ping".*Bad Request: nope/);
      await session.close();
    } finally {
      await server.close();
    }
  });

  test('an answer whose id is beyond 2^53 is refused as invalid, never taken for a request of ours', async () => {
    const { server, url } = await mockServer({
      onRequest: (_msg, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        // As text: 2^64 cannot be written from a JavaScript number, which would round it.
        res.end('{"jsonrpc":"2.0","id":18446744073709551616,"result":{}}');
      },
    });
    try {
      const { session, errors } = await connect(url);
      await assert.rejects(session.ping());
      assert.ok(
        errors.some((e) => /invalid message: .*"id" must be a safe integer/.test(e.message)),
        errors.map((e) => e.message).join('\n'),
      );
      await session.close();
    } finally {
      await server.close();
    }
  });

  test('an answer that is not a valid response fails its request with -32603 saying why', async () => {
    const { server, url } = await mockServer({
      onRequest: (msg, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: 'pong' }));
      },
    });
    try {
      const { session, errors } = await connect(url);
      await assert.rejects(
        session.ping(),
        (e: McpError) =>
          e instanceof InvalidResponseError &&
          e.code === -32603 &&
          e.problem === '"result" must be an object',
      );
      assert.ok(
        errors.some((e) => /invalid message: .*"result" must be an object/.test(e.message)),
        errors.map((e) => e.message).join('\n'),
      );
      await session.close();
    } finally {
      await server.close();
    }
  });

  test('initialize refused with 405 (a legacy server) rejects connect with the status', async () => {
    const server = await listenLoopback((_req, res) => res.writeHead(405).end());
    try {
      const url = `http://127.0.0.1:${server.port}/mcp`;
      await assert.rejects(
        connect(url),
        (e: unknown) => e instanceof StreamableHTTPError && e.status === 405,
      );
    } finally {
      await server.close();
    }
  });

  test('a stream that ends before the answer with no event id fails the request at once, saying why', async () => {
    const { server, url } = await mockServer({
      onRequest: (_msg, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(': nothing to say\n\n');
      },
    });
    try {
      const { session, errors } = await connect(url);
      await assert.rejects(session.ping(), /No answer to "ping".*no event id to resume/);
      assert.equal(errors.length, 1);
      await session.close();
    } finally {
      await server.close();
    }
  });

  test('resumption that keeps failing gives up after maxAttempts, with the backoff of the policy', async () => {
    const { server, seen, url } = await mockServer({
      onRequest: (_msg, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end('id: s1_0\ndata: \n\n');
      },
      onGet: (req, res) => {
        if (req.headers['last-event-id'] === undefined) return res.writeHead(405).end();
        json(res, 503, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'busy' } });
      },
    });
    try {
      const { session } = await connect(url, {
        retry: { maxAttempts: 3, initialDelayMs: 20, maxDelayMs: 40, jitter: 0 },
      });
      const started = performance.now();
      await assert.rejects(session.ping(), /No answer to "ping".*HTTP 503: busy; 3 reconnection attempts/);
      const resumes = seen.filter((s) => s.method === 'GET' && s.headers['last-event-id'] === 's1_0');
      assert.equal(resumes.length, 3);
      // 20 + 40 + 40 ms of waits at least: exponential, capped.
      assert.ok(performance.now() - started >= 95);
      await session.close();
    } finally {
      await server.close();
    }
  });

  test('custom fetch, extra headers, and auth headers asked for on every request', async () => {
    const { server, seen, url } = await mockServer({});
    let token = 0;
    let fetched = 0;
    try {
      const { session } = await connect(url, {
        headers: { 'X-Tenant': 'acme', Accept: 'text/plain' },
        authHeaders: async () => ({ Authorization: `Bearer t${++token}` }),
        fetch: (input, init) => {
          fetched++;
          return fetch(input, init);
        },
      });
      await session.ping();
      await session.close();
      assert.equal(fetched, seen.length);
      assert.deepEqual(
        seen.map((s) => s.headers.authorization),
        seen.map((_, i) => `Bearer t${i + 1}`),
      );
      for (const s of seen) assert.equal(s.headers['x-tenant'], 'acme');
      // The transport's own headers win over the caller's.
      assert.equal(seen[0].headers.accept, 'application/json, text/event-stream');
    } finally {
      await server.close();
    }
  });

  test('close() DELETEs the session, rejects requests in flight and later sends', async () => {
    let held: ServerResponse | undefined;
    const { server, seen, url } = await mockServer({
      onRequest: (_msg, res) => {
        held = res;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('id: a_0\ndata: \n\n');
      },
    });
    try {
      const { session, conn } = await connect(url);
      const inFlight = session.ping();
      await until(() => held !== undefined);
      await session.close();
      await assert.rejects(inFlight, ConnectionClosedError);
      const del = seen.find((s) => s.method === 'DELETE');
      assert.equal(del?.headers['mcp-session-id'], 'mock-session');
      await assert.rejects(conn.send({ jsonrpc: '2.0', method: 'notifications/x' }), ConnectionClosedError);
    } finally {
      held?.destroy();
      await server.close();
    }
  });

  test('close() does not wait past closeTimeoutMs for a DELETE that never answers', async () => {
    const { server, url } = await mockServer({ onDelete: () => {} });
    try {
      const { session, errors } = await connect(url, { closeTimeoutMs: 100 });
      const started = performance.now();
      await session.close();
      const took = performance.now() - started;
      assert.ok(took >= 90 && took < 1000, `close took ${took} ms`);
      assert.match(errors.at(-1)?.message ?? '', /DELETE.*no answer within 100 ms/);
    } finally {
      await server.close();
    }
  });

  test('close() reports a DELETE the server failed, and none where nothing was left to delete', async () => {
    let status = 500;
    const { server, url } = await mockServer({ onDelete: (_req, res) => res.writeHead(status).end() });
    try {
      const failed = await connect(url);
      await failed.session.close();
      assert.deepEqual(
        failed.errors.map((e) => e.message),
        ['DELETE of session mock-session answered HTTP 500'],
      );
      status = 404;
      const forgotten = await connect(url);
      await forgotten.session.close();
      assert.deepEqual(forgotten.errors, [], 'a 404: the server no longer holds the session');
      const gone = await connect(url);
      await server.close();
      await gone.session.close();
      assert.deepEqual(gone.errors, [], 'a connection refused: nothing listens there any more');
    } finally {
      await server.close();
    }
  });

  test("onSessionLost: 'close' closes the connection with a SessionLostError on a 404", async () => {
    const { server, url } = await mockServer({
      onRequest: (msg, res) =>
        json(res, 404, { jsonrpc: '2.0', id: msg.id, error: { code: -32001, message: 'Session not found' } }),
    });
    try {
      const { session } = await connect(url, { onSessionLost: 'close' });
      let cause: Error | undefined;
      session.onclose = (c) => {
        cause = c;
      };
      await assert.rejects(session.ping(), ConnectionClosedError);
      assert.ok(cause instanceof SessionLostError);
      assert.equal(cause.sessionId, 'mock-session');
      assert.match(cause.message, /Session not found/);
      assert.equal(session.isClosed, true);
    } finally {
      await server.close();
    }
  });
});

// ---- against the official SDK server, in process ----

/** The SDK's EventStore contract: ids `<stream>|<n>`, replay of that stream only, priming events skipped. */
class SdkMemoryEventStore implements SdkEventStore {
  private readonly streams = new Map<string, { id: string; message: JSONRPCMessage }[]>();
  private next = 0;

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}|${this.next++}`;
    const list = this.streams.get(streamId) ?? [];
    this.streams.set(streamId, list);
    list.push({ id, message });
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const streamId = eventId.slice(0, eventId.lastIndexOf('|'));
    return this.streams.get(streamId)?.some((e) => e.id === eventId) ? streamId : undefined;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (id: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const streamId =
      (await this.getStreamIdForEventId(lastEventId)) ?? assert.fail(`unknown event ${lastEventId}`);
    const list = this.streams.get(streamId)!;
    const from = list.findIndex((e) => e.id === lastEventId) + 1;
    // A priming event is stored as {}: there is nothing in it to deliver again.
    for (const e of list.slice(from)) if (Object.keys(e.message).length > 0) await send(e.id, e.message);
    return streamId;
  }
}

/** The official SDK server with sessions and an event store, on node:http; `forget` drops a session. */
async function sdkServer() {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let initializes = 0;
  const server = await listenLoopback(async (req, res) => {
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const t = sessions.get(sid);
      if (t === undefined) {
        return json(res, 404, {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32001, message: 'Session not found' },
        });
      }
      return t.handleRequest(req, res);
    }
    initializes++;
    const mcp = new McpServer({ name: 'sdk-server', version: '1.0.0' });
    mcp.registerTool(
      'echo',
      { description: 'echo', inputSchema: { text: z.string() } },
      async ({ text }) => ({
        content: [{ type: 'text', text }],
      }),
    );
    mcp.registerTool(
      'count',
      { description: 'progress 1..n, then done', inputSchema: { n: z.number() } },
      async ({ n }, extra) => {
        for (let i = 1; i <= n; i++) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: extra._meta!.progressToken!, progress: i, total: n },
          });
          await sleep(5);
        }
        return { content: [{ type: 'text', text: `counted to ${n}` }] };
      },
    );
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new SdkMemoryEventStore(),
      retryInterval: 30,
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  });
  return {
    server,
    sessions,
    url: `http://127.0.0.1:${server.port}/mcp`,
    get initializes() {
      return initializes;
    },
  };
}

/**
 * Forwards to `port`; the first POST whose body matches `cut` has its response cut after `bytes`
 * bytes (mid-event), the connection destroyed as a network failure would.
 */
async function cuttingProxy(
  port: number,
  cut: RegExp,
  bytes: number,
): Promise<LoopbackServer & { cuts: () => number }> {
  let cuts = 0;
  const proxy = await listenLoopback(async (req, res) => {
    const body = await readBody(req);
    const upstream = httpRequest(
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode!, up.headers);
        const cutting = cuts === 0 && req.method === 'POST' && cut.test(body);
        if (cutting) cuts++;
        let sent = 0;
        up.on('data', (chunk: Buffer) => {
          if (!cutting) return res.write(chunk);
          if (sent >= bytes) return;
          const room = bytes - sent;
          sent += chunk.length;
          if (sent < bytes) return res.write(chunk);
          // Cut once the bytes before the cut reached the socket: destroyed at once, a response whose first
          // chunk already held them (a busy server sends its events together) would lose its head as well.
          res.write(chunk.subarray(0, room), () => {
            res.destroy();
            up.destroy();
          });
        });
        up.on('end', () => res.end());
        up.on('error', () => res.destroy());
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    upstream.end(body);
  });
  return Object.assign(proxy, { cuts: () => cuts });
}

describe('Streamable HTTP client against the official SDK server', () => {
  test('a stream cut mid-event is resumed with Last-Event-ID and nothing is lost', async () => {
    const sdk = await sdkServer();
    // Past the priming event and the first progress events, in the middle of one.
    const proxy = await cuttingProxy(sdk.server.port, /"tools\/call"/, 400);
    const seen: { method: string; lastEventId: string | null }[] = [];
    try {
      const { session, errors } = await connect(`http://127.0.0.1:${proxy.port}/mcp`, {
        fetch: (input, init) => {
          const headers = init?.headers as Record<string, string>;
          seen.push({ method: init?.method ?? 'GET', lastEventId: headers['last-event-id'] ?? null });
          return fetch(input, init);
        },
      });
      const progress: number[] = [];
      const result = await session.callTool(
        'count',
        { n: 20 },
        { onprogress: (p) => progress.push(p.progress) },
      );
      assert.equal(toolText(result), 'counted to 20');
      assert.equal(proxy.cuts(), 1);
      assert.deepEqual(
        progress,
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      const resumes = seen.filter((s) => s.method === 'GET' && s.lastEventId !== null);
      assert.equal(resumes.length, 1);
      assert.deepEqual(errors, []);
      await session.close();
    } finally {
      await proxy.close();
      await sdk.server.close();
    }
  });

  test('a 404 on a live session re-initializes: lost requests fail typed, safe ones are resent', async () => {
    const sdk = await sdkServer();
    try {
      const { session, conn } = await connect(sdk.url);
      const first = conn.sessionId;
      assert.equal(toolText(await session.callTool('echo', { text: 'a' })), 'a');
      sdk.sessions.clear(); // the server forgot every session, as after a restart
      const [lost, resent] = await Promise.allSettled([
        session.callTool('echo', { text: 'lost' }),
        session.callTool('echo', { text: 'resent' }, { retryOnRestart: true }),
      ]);
      assert.equal(lost.status, 'rejected');
      assert.ok((lost as PromiseRejectedResult).reason instanceof SessionExpiredError);
      assert.equal(resent.status, 'fulfilled');
      assert.equal(toolText((resent as PromiseFulfilledResult<{ content: unknown[] }>).value), 'resent');
      assert.equal(sdk.initializes, 2);
      assert.notEqual(conn.sessionId, undefined);
      assert.notEqual(conn.sessionId, first);
      assert.equal(toolText(await session.callTool('echo', { text: 'b' })), 'b');
      await session.close();
      assert.equal(sdk.sessions.size, 0, 'close() deleted the new session');
    } finally {
      await sdk.server.close();
    }
  });
});

// ---- against our own server ----

describe('Streamable HTTP client against our StreamableHTTPHandler', () => {
  test('polling (the server ends the POST response early), sampling, and a notification on the GET stream', async () => {
    const server = new Server({ name: 'ours', version: '1.0.0' });
    server.tool(
      { name: 'poll', description: 'ends its response early, then answers' },
      async (_args, ctx) => {
        await ctx.sendProgress(1, 2);
        ctx.transport?.closeStream?.();
        await sleep(30);
        await ctx.sendProgress(2, 2);
        return { content: [{ type: 'text', text: 'polled' }] };
      },
    );
    server.tool({ name: 'ask', description: 'samples the client' }, async (_args, ctx) => {
      const answer = await ctx.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'ping?' } }],
        maxTokens: 10,
      });
      return {
        content: [{ type: 'text', text: `client said ${(answer.content as { text: string }).text}` }],
      };
    });
    const handler = new StreamableHTTPHandler(server, { retryMs: 20 });
    const served = await listenLoopback(handler.node());
    const gets: (string | undefined)[] = [];
    try {
      const { session, conn, errors } = await connect(
        `http://127.0.0.1:${served.port}/mcp`,
        {
          fetch: (input, init) => {
            if (init?.method === 'GET') gets.push((init.headers as Record<string, string>)['last-event-id']);
            return fetch(input, init);
          },
        },
        { sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'pong' }, model: 'm' }) },
      );
      await until(() => gets.length === 1);
      const progress: number[] = [];
      const polled = await session.callTool('poll', {}, { onprogress: (p) => progress.push(p.progress) });
      assert.equal(toolText(polled), 'polled');
      assert.deepEqual(progress, [1, 2]);
      assert.equal(gets.length, 2);
      assert.notEqual(gets[1], undefined, 'resumed with Last-Event-ID');
      assert.equal(toolText(await session.callTool('ask', {})), 'client said pong');
      // A message unrelated to any request travels on the standalone GET stream.
      const changed = new Promise<void>((resolve) => session.on('toolsChanged', resolve));
      server.tool({ name: 'late', description: 'added after connect' }, () => ({ content: [] }));
      await changed;
      assert.deepEqual(errors, []);
      const id = conn.sessionId;
      await session.close();
      assert.equal(handler.sessionCount, 0, `close() deleted session ${id}`);
    } finally {
      await handler.close({ deadlineMs: 0 });
      await served.close();
    }
  });
});

// ---- against server-everything (streamableHttp), a server no one here wrote ----

describe('Streamable HTTP client against server-everything', () => {
  let everything: RunningEverything;
  let session: ClientSession;
  let errors: Error[];
  const sampled: string[] = [];

  before(async () => {
    everything = await startEverything('streamableHttp');
    ({ session, errors } = await connect(
      everything.url,
      {},
      {
        roots: [{ uri: 'file:///work/project', name: 'project' }],
        sampling: (params) => {
          const text = (params.messages[0].content as { text: string }).text;
          sampled.push(text);
          return {
            role: 'assistant',
            content: { type: 'text', text: `model says: ${text}` },
            model: 'test-model',
          };
        },
      },
    ));
  });
  after(async () => {
    await session?.close();
    await everything?.stop();
  });

  test('initializes, lists tools and calls echo and get-sum', async () => {
    assert.equal(session.serverInfo.name, 'mcp-servers/everything');
    const names = [];
    for await (const tool of session.tools()) names.push(tool.name);
    for (const name of ['echo', 'get-sum', 'trigger-long-running-operation'])
      assert.ok(names.includes(name), name);
    assert.equal(toolText(await session.callTool('echo', { message: 'hello' })), 'Echo: hello');
    assert.equal(toolText(await session.callTool('get-sum', { a: 2, b: 40 })), 'The sum of 2 and 40 is 42.');
  });

  test('its long-running tool reports progress before its result', async () => {
    const progress: number[] = [];
    const result = await session.callTool(
      'trigger-long-running-operation',
      { duration: 0.3, steps: 3 },
      { onprogress: (p) => progress.push(p.progress) },
    );
    assert.deepEqual(progress, [1, 2, 3]);
    assert.match(toolText(result), /Long running operation completed/);
  });

  test('its sampling tool is answered by our sampling handler', async () => {
    const result = await session.callTool('trigger-sampling-request', { prompt: 'say hi' });
    assert.equal(sampled.length, 1);
    assert.match(sampled[0], /say hi/);
    assert.match(toolText(result), /model says: .*say hi/);
  });

  test('its roots tool is answered with our roots', async () => {
    const result = await session.callTool('get-roots-list', {});
    assert.match(toolText(result), /file:\/\/\/work\/project/);
    assert.deepEqual(errors, []);
  });
});
