import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createDemoServer } from '../../demo/demo-server.js';
import type { JsonRpcMessage } from '../../jsonrpc/types.js';
import { ConnectionClosedError, SessionExpiredError } from '../../peer/errors.js';
import type { Progress } from '../../peer/peer-options.js';
import type { ServerSession } from '../../server/legacy/server-session.js';
import { LegacySSEHandler } from '../../server/sse/legacy-sse-handler.js';
import { freePort } from '../../test-support/free-port.js';
import { type LoopbackServer, listenLoopback, readBody } from '../../test-support/http-loopback.js';
import { ManualClock } from '../../test-support/manual-clock.js';
import { type RecordingReceiver, recordingReceiver } from '../../test-support/recording-receiver.js';
import { within } from '../../test-support/time-limit.js';
import { toolText } from '../../test-support/tool-text.js';
import { Client, type ClientOptions, type ClientSession } from '../index.js';
import { SSEClientConnection, type SSEClientOptions } from './sse-client-connection.js';
import { SSEClientError } from './sse-client-errors.js';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Small, deterministic reconnection delays for tests. */
const FAST_RETRY = { initialDelayMs: 5, maxDelayMs: 20, jitter: 0 } as const;

/** Opens an SSE response: head, then (unless `endpoint` is null) the endpoint event. */
function openSse(res: ServerResponse, endpoint: string | null): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (endpoint !== null) res.write(`event: endpoint\ndata: ${endpoint}\n\n`);
  else res.write(': waiting\n\n');
}

function sseMessage(message: unknown): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

interface FakeServer {
  readonly port: number;
  readonly url: string;
  /** Every GET on /sse, in order. */
  readonly gets: IncomingMessage[];
  /** Every POST body, in the order the bodies finished arriving. */
  readonly posts: string[];
  /** The SSE responses, in order. */
  readonly streams: ServerResponse[];
  /** Writes raw SSE text to the latest stream. */
  push(text: string): void;
  close(): Promise<void>;
}

interface FakeBehaviour {
  /** Answers every GET; default: on /sse only, the stream with endpoint `/messages?sessionId=<n>`. */
  get?(req: IncomingMessage, res: ServerResponse, n: number, fake: FakeServer): void;
  /** Answers a POST whose body arrived; default 202. */
  post?(body: string, res: ServerResponse, n: number, fake: FakeServer): void;
}

/** A hand-written legacy SSE server on 127.0.0.1, for the faults our own handler never commits. */
async function fakeServer(behaviour: FakeBehaviour = {}): Promise<FakeServer> {
  const gets: IncomingMessage[] = [];
  const posts: string[] = [];
  const streams: ServerResponse[] = [];
  let fake!: FakeServer;
  const http = await listenLoopback((req, res) => {
    if (req.method === 'GET' && (behaviour.get !== undefined || req.url === '/sse')) {
      gets.push(req);
      const n = gets.length;
      streams.push(res);
      if (behaviour.get) behaviour.get(req, res, n, fake);
      else openSse(res, `/messages?sessionId=${n}`);
      return;
    }
    if (req.method === 'POST') {
      readBody(req).then((body) => {
        posts.push(body);
        if (behaviour.post) behaviour.post(body, res, posts.length, fake);
        else {
          res.writeHead(202);
          res.end('Accepted');
        }
      });
      return;
    }
    res.writeHead(404);
    res.end();
  });
  fake = {
    port: http.port,
    url: `http://127.0.0.1:${http.port}/sse`,
    gets,
    posts,
    streams,
    push: (text) => {
      streams[streams.length - 1].write(text);
    },
    close: () => http.close(),
  };
  return fake;
}

/** A minimal MCP responder for the fake server: answers initialize and ping on the latest stream. */
function answerMcp(body: string, res: ServerResponse, _n: number, fake: FakeServer): void {
  res.writeHead(202);
  res.end('Accepted');
  const message = JSON.parse(body) as { id?: number; method?: string };
  if (message.method === 'initialize') {
    fake.push(
      sseMessage({
        jsonrpc: '2.0',
        id: message.id,
        result: {
          protocolVersion: '2024-11-05',
          capabilities: {},
          serverInfo: { name: 'fake', version: '1' },
        },
      }),
    );
  } else if (message.method === 'ping') {
    fake.push(sseMessage({ jsonrpc: '2.0', id: message.id, result: {} }));
  }
}

/** A started transport with a recording receiver. */
function startTransport(url: string, options: SSEClientOptions = {}) {
  const connection = new SSEClientConnection(url, { retry: FAST_RETRY, ...options });
  const receiver = recordingReceiver();
  connection.start(receiver);
  return { connection, receiver };
}

const ping = (id: number): JsonRpcMessage => ({ jsonrpc: '2.0', id, method: 'ping' });

function closedWith(receiver: RecordingReceiver): SSEClientError {
  assert.equal(receiver.closes.length, 1);
  const cause = receiver.closes[0];
  assert.ok(cause instanceof SSEClientError, `closed with ${cause}`);
  return cause;
}

describe('SSEClientConnection with our LegacySSEHandler and the demo server', () => {
  let http: LoopbackServer;
  let handler: LegacySSEHandler;
  let url: string;
  const samplingPrompts: string[] = [];
  const clientErrors: Error[] = [];

  const clientOptions: ClientOptions = {
    requestTimeoutMs: 5000,
    roots: [{ uri: 'file:///work/project', name: 'project' }],
    onerror: (err) => clientErrors.push(err),
    sampling: (params) => {
      const first = params.messages[0]?.content;
      const prompt = first !== undefined && !Array.isArray(first) && first.type === 'text' ? first.text : '?';
      samplingPrompts.push(prompt);
      return {
        role: 'assistant',
        content: { type: 'text', text: `sampled: ${prompt}` },
        model: 'test-model',
      };
    },
  };

  before(async () => {
    let listener: ReturnType<LegacySSEHandler['node']> = () => {};
    http = await listenLoopback((req, res) => listener(req, res));
    handler = new LegacySSEHandler(createDemoServer(), { keepAliveMs: 0 });
    listener = handler.node();
    url = `http://127.0.0.1:${http.port}/sse`;
  });

  after(async () => {
    await handler.close();
    await http.close();
  });

  async function connect(options: SSEClientOptions = {}) {
    const connection = new SSEClientConnection(url, { retry: FAST_RETRY, ...options });
    const session = await within(
      new Client({ name: 'sse-test', version: '1' }, clientOptions).connect(connection),
      5000,
      'initialize',
    );
    return { connection, session };
  }

  /** The server session that answers `session` (the one our client initialized last). */
  function serverSessionOf(): ServerSession {
    const live = [...handler.server.sessions].filter((s) => s.initialized);
    assert.equal(live.length, 1, `expected one initialized server session, got ${live.length}`);
    return live[0];
  }

  test('initialize over the stream; the relative endpoint resolves against the SSE URL', async () => {
    const { connection, session } = await connect();
    try {
      assert.equal(session.serverInfo.name, 'mcpwire-demo');
      assert.match(
        connection.endpoint?.href ?? '',
        new RegExp(`^http://127\\.0\\.0\\.1:${http.port}/messages\\?sessionId=[\\w-]{22}$`),
      );
      const echo = await session.callTool('echo', { message: 'over SSE' });
      assert.equal(toolText(echo), 'Echo: over SSE');
    } finally {
      await session.close();
    }
  });

  test('roots and sampling: the server calls back and our handlers answer', async () => {
    const { session } = await connect();
    try {
      const roots = await session.callTool('list_roots');
      assert.deepEqual(roots.structuredContent, { roots: ['file:///work/project'] });
      samplingPrompts.length = 0;
      const sampled = await session.callTool('sample', { prompt: 'hello model' });
      assert.equal(toolText(sampled), 'sampled: hello model');
      assert.deepEqual(samplingPrompts, ['hello model']);
    } finally {
      await session.close();
    }
  });

  test('progress of a long-running tool arrives in order before its result', async () => {
    const { session } = await connect();
    try {
      const seen: Progress[] = [];
      const result = await session.callTool(
        'long_running',
        { duration: 0.06, steps: 3 },
        { onprogress: (p) => seen.push(p) },
      );
      assert.deepEqual(
        seen.map((p) => [p.progress, p.total]),
        [
          [1, 3],
          [2, 3],
          [3, 3],
        ],
      );
      assert.match(toolText(result), /completed: 3 steps/);
    } finally {
      await session.close();
    }
  });

  test('the stream ends: the client reconnects, initializes anew; the request in flight fails typed', async () => {
    const { connection, session } = await connect();
    try {
      const first = serverSessionOf();
      const firstEndpoint = connection.endpoint?.href;
      const inFlight = session.callTool('long_running', { duration: 10, steps: 1 });
      await delay(20);
      // The server drops the stream: its session is gone.
      await first.connection.close();
      await within(
        assert.rejects(inFlight, SessionExpiredError),
        5000,
        'the in-flight call to fail with SessionExpiredError',
      );
      const echo = await within(session.callTool('echo', { message: 'again' }), 5000, 'echo after reconnect');
      assert.equal(toolText(echo), 'Echo: again');
      // A second initialize reached a new server session, with our capabilities and roots.
      const second = serverSessionOf();
      assert.notEqual(second, first);
      assert.equal(second.clientInfo?.name, 'sse-test');
      assert.deepEqual(second.clientCapabilities?.roots, { listChanged: true });
      assert.notEqual(connection.endpoint?.href, firstEndpoint);
      const roots = await session.callTool('list_roots');
      assert.deepEqual(roots.structuredContent, { roots: ['file:///work/project'] });
    } finally {
      await session.close();
    }
  });

  test('a request made while the client reconnects reached no one: it is sent on the new session', async () => {
    // The reconnection waits for this clock, so the request is made while there is no session for certain.
    const clock = new ManualClock();
    const { connection, session } = await connect({ clock });
    try {
      const first = serverSessionOf();
      await first.connection.close();
      await within(
        (async () => {
          while (connection.endpoint !== undefined) await delay(5);
        })(),
        5000,
        'the client to see the stream end',
      );
      const during = session.callTool('echo', { message: 'during' });
      let settled = false;
      during.then(
        () => (settled = true),
        () => (settled = true),
      );
      await delay(20);
      assert.equal(settled, false, 'the call waits for a session');
      clock.advance(FAST_RETRY.initialDelayMs);
      const echo = await within(during, 5000, 'the call made while reconnecting');
      assert.equal(toolText(echo), 'Echo: during');
      assert.notEqual(serverSessionOf(), first);
    } finally {
      await session.close();
    }
  });

  test('closeGracefully: queued messages are POSTed, then the stream closes', async () => {
    const { connection, session } = await connect();
    const sessionsBefore = handler.sessionCount;
    let closedCause: Error | undefined | 'open' = 'open';
    session.onclose = (cause) => {
      closedCause = cause;
    };
    const sends = [1, 2, 3].map((n) =>
      connection.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed', params: { n } }),
    );
    const closing = connection.closeGracefully();
    await assert.rejects(connection.send(ping(99)), (err: SSEClientError) => {
      assert.equal(err.kind, 'refused');
      assert.match(err.message, /closing \(closeGracefully\)/);
      return true;
    });
    await within(closing, 5000, 'closeGracefully');
    await Promise.all(sends);
    assert.equal(closedCause, undefined);
    await within(
      (async () => {
        while (handler.sessionCount >= sessionsBefore) await delay(5);
      })(),
      2000,
      'the server to see the stream close',
    );
  });
});

describe('SSEClientConnection against hand-written servers', () => {
  test('an absolute endpoint on the same origin is used as given', async () => {
    const fake = await fakeServer({
      get: (req, res) => openSse(res, `http://127.0.0.1:${req.socket.localPort}/elsewhere/post?x=1`),
    });
    const { connection, receiver } = startTransport(fake.url);
    try {
      await connection.send(ping(1));
      assert.equal(connection.endpoint?.href, `http://127.0.0.1:${fake.port}/elsewhere/post?x=1`);
      assert.deepEqual(
        fake.posts.map((b) => JSON.parse(b)),
        [ping(1)],
      );
      assert.deepEqual(receiver.errors, []);
    } finally {
      await connection.close();
      await fake.close();
    }
  });

  test('an endpoint on another origin is refused and nothing is POSTed there', async () => {
    for (const endpoint of ['http://localhost:1/steal', 'https://evil.example/messages']) {
      const fake = await fakeServer({ get: (_req, res) => openSse(res, endpoint) });
      const { connection, receiver } = startTransport(fake.url);
      const queued = assert.rejects(connection.send(ping(1)), ConnectionClosedError);
      try {
        await receiver.until(() => receiver.closes.length > 0);
        const cause = closedWith(receiver);
        assert.equal(cause.kind, 'endpoint-refused');
        assert.match(cause.message, /another origin/);
        assert.ok(cause.message.includes(new URL(endpoint).href), cause.message);
        await queued;
        assert.equal(fake.gets.length, 1, 'a refused endpoint is not retried');
        assert.deepEqual(fake.posts, []);
      } finally {
        await fake.close();
      }
    }
  });

  test('a redirect within the origin is followed; the endpoint resolves against where it led', async () => {
    const fake = await fakeServer({
      get: (req, res) => {
        if (req.url === '/old/sse') {
          res.writeHead(307, { location: '/new/sse' });
          res.end();
        } else openSse(res, 'messages?s=1');
      },
    });
    const { connection, receiver } = startTransport(`http://127.0.0.1:${fake.port}/old/sse`);
    try {
      await connection.send(ping(1));
      assert.equal(connection.endpoint?.href, `http://127.0.0.1:${fake.port}/new/messages?s=1`);
      assert.deepEqual(
        fake.gets.map((g) => g.url),
        ['/old/sse', '/new/sse'],
      );
      assert.deepEqual(receiver.errors, []);
    } finally {
      await connection.close();
      await fake.close();
    }
  });

  test('a redirect to another origin is refused: the headers stay home', async () => {
    const fake = await fakeServer({
      get: (req, res) => {
        res.writeHead(302, { location: `http://localhost:${req.socket.localPort}/sse` });
        res.end();
      },
    });
    const { receiver } = startTransport(fake.url, { headers: { 'x-api-key': 'secret' } });
    try {
      await receiver.until(() => receiver.closes.length > 0);
      const cause = closedWith(receiver);
      assert.equal(cause.kind, 'redirect-refused');
      assert.match(cause.message, /to http:\/\/localhost:\d+\/sse: it is on another origin/);
      assert.equal(fake.gets.length, 1);
    } finally {
      await fake.close();
    }
  });

  test("a redirect a browser hides (redirect: 'manual' gives an opaque answer) is refused, saying so", async () => {
    const requests: RequestInit[] = [];
    // What a browser's fetch resolves with for a redirect not followed: type 'opaqueredirect', status 0.
    const browserFetch: typeof fetch = async (_input, init) => {
      requests.push(init ?? {});
      const opaque = new Response(null, { status: 200 });
      Object.defineProperties(opaque, { type: { value: 'opaqueredirect' }, status: { value: 0 } });
      return opaque;
    };
    const { receiver } = startTransport('http://127.0.0.1:9/sse', { fetch: browserFetch });
    await receiver.until(() => receiver.closes.length > 0);
    const cause = closedWith(receiver);
    assert.equal(cause.kind, 'redirect-refused');
    assert.match(cause.message, /was redirected, and a browser does not say where to/);
    assert.equal(requests.length, 1, 'not retried');
    assert.equal(requests[0].redirect, 'manual');
  });

  test('an answer that is not an event stream closes the transport, without retrying', async () => {
    const fake = await fakeServer({
      get: (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html></html>');
      },
    });
    const { receiver } = startTransport(fake.url);
    try {
      await receiver.until(() => receiver.closes.length > 0);
      const cause = closedWith(receiver);
      assert.equal(cause.kind, 'not-event-stream');
      assert.match(cause.message, /answered with text\/html, not text\/event-stream/);
      assert.equal(fake.gets.length, 1);
    } finally {
      await fake.close();
    }
  });

  test('no endpoint event in time: a clear timeout error naming the URL and the wait', async () => {
    const fake = await fakeServer({ get: (_req, res) => openSse(res, null) });
    const { connection, receiver } = startTransport(fake.url, { endpointTimeoutMs: 80 });
    const queued = connection.send(ping(1));
    try {
      await within(assert.rejects(queued, /Connection closed: No endpoint event/), 2000, 'the send to fail');
      const cause = closedWith(receiver);
      assert.equal(cause.kind, 'endpoint-timeout');
      assert.ok(cause.message.includes(fake.url), cause.message);
      assert.match(cause.message, /within 80 ms \(endpointTimeoutMs\)/);
      assert.equal(connection.isClosed, true);
    } finally {
      await fake.close();
    }
  });

  test('a malformed message event is reported and answered; the session keeps working', async () => {
    const fake = await fakeServer({ post: answerMcp });
    const errors: Error[] = [];
    const connection = new SSEClientConnection(fake.url, { retry: FAST_RETRY });
    const session = await within(
      new Client({ name: 'c', version: '1' }, { onerror: (err) => errors.push(err) }).connect(connection),
      5000,
      'initialize',
    );
    try {
      fake.push('event: message\ndata: {not json\n\n');
      fake.push(sseMessage({ jsonrpc: '2.0', id: 'x' }));
      await within(session.ping(), 2000, 'ping after the malformed events');
      assert.equal(errors.length, 2, errors.join('\n'));
      assert.match(errors[0].message, /^Parse error: /);
      assert.equal(errors[1].message, 'Invalid request: a message needs "method", "result" or "error"');
      // Each was answered with a JSON-RPC error, as every transport answers invalid input.
      // The ping may overtake them on the way out: its answer comes after them on the stream.
      await within(
        (async () => {
          while (fake.posts.length < 5) await delay(5);
        })(),
        2000,
        'the two error answers',
      );
      const answers = fake.posts.map((b) => JSON.parse(b)).filter((m) => 'error' in m);
      assert.deepEqual(
        answers.map((m) => [m.id, m.error.code]),
        [
          [null, -32700],
          ['x', -32600],
        ],
      );
      assert.equal(fake.gets.length, 1, 'the stream was not reopened');
    } finally {
      await session.close();
      await fake.close();
    }
  });

  test('one POST at a time, in order, even when the first is slow', async () => {
    let active = 0;
    let most = 0;
    const arrival: number[] = [];
    const fake = await fakeServer({
      post: (body, res, n) => {
        arrival.push(JSON.parse(body).id);
        active++;
        most = Math.max(most, active);
        setTimeout(
          () => {
            active--;
            res.writeHead(202);
            res.end();
          },
          n === 1 ? 100 : 1,
        );
      },
    });
    const { connection } = startTransport(fake.url);
    try {
      const sends = Array.from({ length: 20 }, (_, i) => connection.send(ping(i)));
      await within(Promise.all(sends), 5000, '20 sends');
      assert.deepEqual(
        arrival,
        Array.from({ length: 20 }, (_, i) => i),
      );
      assert.equal(most, 1, 'never two POSTs at once');
    } finally {
      await connection.close();
      await fake.close();
    }
  });

  test('a POST with no answer in postTimeoutMs fails; the next one goes out', async () => {
    const fake = await fakeServer({
      post: (_body, res, n) => {
        if (n === 1) return;
        res.writeHead(202);
        res.end();
      },
    });
    // Time moves only for the first POST: with real timers, a second POST answered slower than 50 ms on a busy
    // machine failed too.
    const clock = new ManualClock();
    const { connection, receiver } = startTransport(fake.url, { postTimeoutMs: 50, clock });
    try {
      const first = connection.send(ping(1));
      const second = connection.send(ping(2));
      await receiver.until(() => fake.posts.length === 1, 20_000);
      clock.advance(50);
      await assert.rejects(first, (err: SSEClientError) => {
        assert.equal(err.kind, 'post-failed');
        assert.match(err.message, /got no answer within 50 ms \(postTimeoutMs\)$/);
        return true;
      });
      await within(second, 20_000, 'the second send');
      assert.deepEqual(
        fake.posts.map((b) => JSON.parse(b).id),
        [1, 2],
      );
      assert.equal(receiver.errors.length, 1);
    } finally {
      await connection.close();
      await fake.close();
    }
  });

  test('a POST answered with a body that never ends holds up nothing: the next one goes out', async () => {
    const fake = await fakeServer({
      post: (_body, res, n) => {
        res.writeHead(202);
        if (n > 1) return void res.end();
        // Kept going until the test ends: a client that read it whole would wait for postTimeoutMs.
        const chunk = 'x'.repeat(16 * 1024);
        const more = () => {
          if (!res.destroyed && res.write(chunk)) setImmediate(more);
        };
        res.on('drain', more);
        more();
      },
    });
    const { connection } = startTransport(fake.url, { postTimeoutMs: 120_000 });
    try {
      await within(connection.send(ping(1)), 20_000, 'the first send');
      await within(connection.send(ping(2)), 20_000, 'the second send');
      assert.deepEqual(
        fake.posts.map((b) => JSON.parse(b).id),
        [1, 2],
      );
    } finally {
      await connection.close();
      await fake.close();
    }
  });

  test('past postQueueLimit, send rejects at once', async () => {
    const fake = await fakeServer({ get: (_req, res) => openSse(res, null) });
    const { connection } = startTransport(fake.url, { postQueueLimit: 2 });
    try {
      const waiting = [connection.send(ping(1)), connection.send(ping(2))].map((p) =>
        assert.rejects(p, ConnectionClosedError),
      );
      await assert.rejects(connection.send(ping(3)), (err: SSEClientError) => {
        assert.equal(err.kind, 'refused');
        assert.match(err.message, /2 messages already wait .* \(postQueueLimit\)/);
        return true;
      });
      await connection.close();
      await Promise.all(waiting);
    } finally {
      await fake.close();
    }
  });

  test('a silent stream past idleTimeoutMs is reconnected; keep-alive comments count as life', async () => {
    // The comments come every 20 ms for 1 s, well past idleTimeoutMs (400), then stop. The margin is for a busy
    // machine: this process paused for 60 ms (the timeout was 60) found the stream silent between two comments.
    let keepAlive: NodeJS.Timeout | undefined;
    const fake = await fakeServer({
      get: (_req, res, n) => {
        openSse(res, `/messages?sessionId=${n}`);
        if (n === 1) keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 20);
      },
    });
    const { connection, receiver } = startTransport(fake.url, { idleTimeoutMs: 400 });
    try {
      await receiver.until(() => connection.endpoint !== undefined);
      await delay(1000);
      assert.equal(fake.gets.length, 1, 'alive while the comments come');
      assert.deepEqual(receiver.errors, []);
      clearInterval(keepAlive);
      await receiver.until(() => receiver.restarts.length === 1, 20_000);
      assert.equal((receiver.errors[0] as SSEClientError).kind, 'idle');
      assert.match(
        (receiver.errors[0] as SSEClientError).message,
        /was silent for \d+ ms \(idleTimeoutMs is 400\)/,
      );
    } finally {
      clearInterval(keepAlive);
      await connection.close();
      await fake.close();
    }
  });

  test('an unfinished event past maxEventChars breaks the stream, which is reconnected', async () => {
    const fake = await fakeServer();
    const { connection, receiver } = startTransport(fake.url, { maxEventChars: 100 });
    try {
      await receiver.until(() => connection.endpoint !== undefined);
      // An event that never ends would otherwise grow the buffer without bound.
      fake.push(`event: message\ndata: "${'x'.repeat(200)}`);
      await receiver.until(() => receiver.restarts.length === 1);
      assert.equal((receiver.errors[0] as SSEClientError).kind, 'event-too-large');
      assert.deepEqual(receiver.messages, []);
    } finally {
      await connection.close();
      await fake.close();
    }
  });

  test('a POST answered 400 rejects its send with the status and the body, reported too', async () => {
    const fake = await fakeServer({
      post: (_body, res) => {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Bad thing' } }));
      },
    });
    const { connection, receiver } = startTransport(fake.url);
    try {
      await assert.rejects(connection.send(ping(1)), (err: SSEClientError) => {
        assert.equal(err.kind, 'http-status');
        assert.equal(err.status, 400);
        assert.match(
          err.message,
          /^POST http:\/\/127\.0\.0\.1:\d+\/messages\?sessionId=1 was answered 400: Bad thing$/,
        );
        return true;
      });
      assert.equal(receiver.errors.length, 1);
      assert.equal((receiver.errors[0] as SSEClientError).status, 400);
      // The transport goes on.
      assert.equal(connection.isClosed, false);
    } finally {
      await connection.close();
      await fake.close();
    }
  });

  test('a POST answered 404: the server forgot the session, so the client reconnects', async () => {
    const fake = await fakeServer({
      post: (_body, res, n) => {
        res.writeHead(n === 1 ? 404 : 202);
        res.end(n === 1 ? 'no such session' : '');
      },
    });
    const { connection, receiver } = startTransport(fake.url);
    try {
      // Lost with the old session: the send resolves, and the restart tells the session so.
      await connection.send(ping(1));
      await receiver.until(() => receiver.restarts.length === 1);
      assert.equal((receiver.restarts[0] as SSEClientError).kind, 'reconnected');
      assert.equal(fake.gets.length, 2);
      assert.equal(connection.endpoint?.search, '?sessionId=2');
      await connection.send(ping(2));
      assert.deepEqual(
        fake.posts.map((b) => JSON.parse(b).id),
        [1, 2],
      );
      assert.match(receiver.errors[0]?.message ?? '', /answered 404: no such session; reconnecting in 5 ms/);
    } finally {
      await connection.close();
      await fake.close();
    }
  });

  test('a new session: what was queued is dropped, and the restart names what never left', async () => {
    let heldPost: ServerResponse | undefined;
    const fake = await fakeServer({
      // The second stream names its endpoint only when the test says so.
      get: (_req, res, n) => openSse(res, n === 1 ? '/messages?sessionId=1' : null),
      // The first POST is never answered: it is in flight when the session is lost.
      post: (_body, res, n) => {
        if (n === 1) heldPost = res;
        else {
          res.writeHead(202);
          res.end();
        }
      },
    });
    const { connection, receiver } = startTransport(fake.url);
    try {
      await receiver.until(() => connection.endpoint !== undefined);
      const inFlight = connection.send(ping(1));
      await receiver.until(() => fake.posts.length === 1);
      fake.streams[0].end();
      await receiver.until(() => fake.gets.length === 2);
      const cancelled: JsonRpcMessage = {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 1 },
      };
      const queued = [connection.send(ping(2)), connection.send(cancelled)];
      fake.push('event: endpoint\ndata: /messages?sessionId=2\n\n');
      await receiver.until(() => receiver.restarts.length === 1);
      // Every send settles as delivered to the lost session; only the two that were never POSTed are unsent.
      await Promise.all([inFlight, ...queued]);
      assert.deepEqual(receiver.unsent[0], [ping(2), cancelled]);
      assert.deepEqual(
        fake.posts.map((b) => JSON.parse(b).id),
        [1],
      );
      await connection.send(ping(3));
      assert.deepEqual(
        fake.posts.map((b) => JSON.parse(b).id),
        [1, 3],
      );
    } finally {
      heldPost?.end();
      await connection.close();
      await fake.close();
    }
  });

  test('a permanent 401 closes the transport with the cause, without retrying', async () => {
    const fake = await fakeServer({
      get: (_req, res) => {
        res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
        res.end(
          JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Token expired' } }),
        );
      },
    });
    const connection = new SSEClientConnection(fake.url, {
      retry: FAST_RETRY,
      headers: { Authorization: 'x' },
    });
    try {
      await assert.rejects(
        within(new Client({ name: 'c', version: '1' }).connect(connection), 5000, 'connect'),
        /Connection closed: GET http:\/\/127\.0\.0\.1:\d+\/sse was answered 401: Token expired/,
      );
      assert.equal(fake.gets.length, 1);
      assert.equal(fake.gets[0].headers.authorization, 'x');
      assert.equal(fake.gets[0].headers.accept, 'text/event-stream');
    } finally {
      await fake.close();
    }
  });

  test('transient failures spend the retry budget, then the transport closes', async () => {
    const fake = await fakeServer({
      get: (_req, res) => {
        res.writeHead(503);
        res.end('overloaded');
      },
    });
    const { receiver } = startTransport(fake.url, { retry: { ...FAST_RETRY, maxAttempts: 2 } });
    try {
      await receiver.until(() => receiver.closes.length > 0);
      const cause = closedWith(receiver);
      assert.equal(cause.kind, 'retries-exhausted');
      assert.equal(cause.status, 503);
      assert.match(cause.message, /answered 503: overloaded; gave up after 2 reconnection attempts/);
      assert.equal(fake.gets.length, 3);
      assert.deepEqual(
        receiver.errors.map((e) => e.message.replace(/^.*; /, '')),
        ['reconnecting in 5 ms (attempt 1 of 2)', 'reconnecting in 10 ms (attempt 2 of 2)'],
      );
    } finally {
      await fake.close();
    }
  });

  test('the server is unreachable: network errors are retried, then the transport closes', async () => {
    const port = await freePort();
    const { receiver } = startTransport(`http://127.0.0.1:${port}/sse`, {
      retry: { ...FAST_RETRY, maxAttempts: 1 },
    });
    await receiver.until(() => receiver.closes.length > 0);
    const cause = closedWith(receiver);
    assert.equal(cause.kind, 'retries-exhausted');
    assert.match(cause.message, /GET http:\/\/127\.0\.0\.1:\d+\/sse failed: fetch failed: .*ECONNREFUSED/);
  });

  test("the server's retry: field sets the reconnection delay", async () => {
    const clock = new ManualClock();
    const fake = await fakeServer({
      get: (_req, res, n) => {
        openSse(res, `/messages?sessionId=${n}`);
        // The first stream asks for 3 s between reconnections, then ends.
        if (n === 1) res.end('retry: 3000\n\n');
      },
    });
    const { connection, receiver } = startTransport(fake.url, {
      clock,
      retry: { initialDelayMs: 10, maxDelayMs: 10, jitter: 0 },
    });
    try {
      await receiver.until(() => receiver.errors.length === 1);
      assert.match(receiver.errors[0].message, /ended the SSE stream .*; reconnecting in 3000 ms/);
      clock.advance(2999);
      await delay(30);
      assert.equal(fake.gets.length, 1, 'no reconnection before the 3 s the server asked for');
      clock.advance(1);
      await receiver.until(() => receiver.restarts.length === 1);
      assert.equal(fake.gets.length, 2);
    } finally {
      await connection.close();
      await fake.close();
    }
  });

  test('Retry-After on a 503 sets the delay of that reconnection', async () => {
    const clock = new ManualClock();
    const fake = await fakeServer({
      get: (_req, res, n) => {
        if (n === 1) {
          res.writeHead(503, { 'retry-after': '2' });
          res.end();
        } else openSse(res, '/messages');
      },
    });
    const { connection, receiver } = startTransport(fake.url, { clock });
    try {
      await receiver.until(() => receiver.errors.length === 1);
      assert.match(receiver.errors[0].message, /answered 503: \(empty body\); reconnecting in 2000 ms/);
      clock.advance(2000);
      await receiver.until(() => connection.endpoint !== undefined);
      assert.equal(fake.gets.length, 2);
      // The first endpoint is not a restart: there was no session before.
      assert.deepEqual(receiver.restarts, []);
    } finally {
      await connection.close();
      await fake.close();
    }
  });

  test('authHeaders are asked for on every request and never replace the protocol headers', async () => {
    const seen: IncomingMessage['headers'][] = [];
    const fake = await fakeServer({
      post: (_body, res) => {
        res.writeHead(202);
        res.end();
      },
    });
    let token = 0;
    const { connection } = startTransport(fake.url, {
      headers: { 'X-Static': 's' },
      authHeaders: async () => ({ Authorization: `Bearer ${++token}`, 'Content-Type': 'text/plain' }),
      fetch: (input, init) => {
        seen.push(Object.fromEntries(Object.entries(init?.headers ?? {})));
        return fetch(input, init);
      },
    });
    try {
      await connection.send(ping(1));
      await connection.send(ping(2));
      assert.deepEqual(seen, [
        {
          'x-static': 's',
          accept: 'text/event-stream',
          authorization: 'Bearer 1',
          'content-type': 'text/plain',
        },
        { 'x-static': 's', 'content-type': 'application/json', authorization: 'Bearer 2' },
        { 'x-static': 's', 'content-type': 'application/json', authorization: 'Bearer 3' },
      ]);
    } finally {
      await connection.close();
      await fake.close();
    }
  });

  test('closeGracefully gives up on what is left after drainTimeoutMs', async () => {
    const fake = await fakeServer({ post: () => {} });
    const { connection, receiver } = startTransport(fake.url, { drainTimeoutMs: 50 });
    try {
      const stuck = connection.send(ping(1));
      const next = connection.send(ping(2));
      await receiver.until(() => fake.posts.length === 1);
      const started = performance.now();
      await within(connection.closeGracefully(), 2000, 'closeGracefully');
      assert.ok(performance.now() - started < 1000);
      for (const send of [stuck, next]) {
        await assert.rejects(send, (err: SSEClientError) => {
          assert.equal(err.kind, 'refused');
          assert.match(err.message, /waited 50 ms \(drainTimeoutMs\) for 2 queued message\(s\)/);
          return true;
        });
      }
      assert.deepEqual(receiver.closes, [undefined]);
    } finally {
      await fake.close();
    }
  });

  test('close() is immediate: queued sends reject, the stream is aborted', async () => {
    const fake = await fakeServer({ post: () => {} });
    const { connection, receiver } = startTransport(fake.url);
    try {
      const sends = [1, 2, 3].map((id) => connection.send(ping(id)));
      await receiver.until(() => fake.posts.length === 1);
      const streamClosed = new Promise((resolve) => fake.gets[0].on('close', resolve));
      await connection.close();
      for (const send of sends) await assert.rejects(send, ConnectionClosedError);
      await within(streamClosed, 2000, 'the server to see the GET close');
      assert.deepEqual(receiver.closes, [undefined]);
      await assert.rejects(connection.send(ping(4)), ConnectionClosedError);
    } finally {
      await fake.close();
    }
  });
});

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/** The demo server behind our LegacySSEHandler, in a child process on `port`. */
function serveDemoInChild(port: number): Promise<ChildProcess> {
  const script = `
    import { createServer } from 'node:http';
    import { createDemoServer } from ${JSON.stringify(`${REPO}src/demo/demo-server.ts`)};
    import { LegacySSEHandler } from ${JSON.stringify(`${REPO}src/server/sse/legacy-sse-handler.ts`)};
    const handler = new LegacySSEHandler(createDemoServer(), { keepAliveMs: 0 });
    createServer(handler.node()).listen(${port}, '127.0.0.1', () => process.stdout.write('listening\\n'));
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return within(
    new Promise<ChildProcess>((resolve, reject) => {
      let stderr = '';
      child.stderr?.on('data', (chunk) => {
        stderr += chunk;
      });
      child.stdout?.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('listening')) resolve(child);
      });
      child.once('exit', (code) => reject(new Error(`the demo server exited (${code}): ${stderr}`)));
    }),
    15_000,
    'the demo server child to listen',
  ).catch((err) => {
    child.kill('SIGKILL');
    throw err;
  });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

describe('fault: the server process is killed and restarted mid-session', () => {
  test('the client reconnects, initializes anew, and a later call succeeds', {
    timeout: 60_000,
  }, async () => {
    const port = await freePort();
    let child = await serveDemoInChild(port);
    const errors: Error[] = [];
    const connection = new SSEClientConnection(`http://127.0.0.1:${port}/sse`, {
      // Enough budget to outlast the restart of a process.
      retry: { maxAttempts: 100, initialDelayMs: 20, maxDelayMs: 200, jitter: 1 },
    });
    let session: ClientSession | undefined;
    try {
      session = await within(
        new Client(
          { name: 'fault-test', version: '1' },
          {
            requestTimeoutMs: 10_000,
            roots: [{ uri: 'file:///work/fault', name: 'fault' }],
            onerror: (err) => errors.push(err),
          },
        ).connect(connection),
        10_000,
        'initialize',
      );
      assert.equal(toolText(await session.callTool('echo', { message: 'before' })), 'Echo: before');
      const firstEndpoint = connection.endpoint?.href;
      const inFlight = session.callTool('long_running', { duration: 30, steps: 1 });
      await delay(50);

      child.kill('SIGKILL');
      await exited(child);
      child = await serveDemoInChild(port);

      await within(assert.rejects(inFlight, SessionExpiredError), 20_000, 'the lost call to fail typed');
      const after = await within(
        session.callTool('echo', { message: 'after' }),
        20_000,
        'echo after restart',
      );
      assert.equal(toolText(after), 'Echo: after');
      // The new process learned our capabilities and roots from the second initialize.
      const roots = await session.callTool('list_roots');
      assert.deepEqual(roots.structuredContent, { roots: ['file:///work/fault'] });
      assert.notEqual(connection.endpoint?.href, firstEndpoint);
      assert.ok(
        errors.some((e) => e instanceof SSEClientError && /reconnecting in/.test(e.message)),
        errors.map((e) => e.message).join('\n'),
      );
    } finally {
      await session?.close();
      await connection.close();
      child.kill('SIGKILL');
      await exited(child);
    }
  });
});
