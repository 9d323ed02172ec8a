import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fromNode } from '../../http/node-adapter.js';
import { rawRequest } from '../../test-support/http-loopback.js';
import {
  get,
  initializeRequest,
  jsonBody,
  openSession,
  parseSse,
  post,
  type Served,
  SSEReader,
  serveOn,
  sseMessages,
  toolCall,
} from '../../test-support/mcp-http.js';
import { createTestServer, serveTestServer } from '../../test-support/streamable-fixture.js';
import { HTTPRejectionError } from './errors.js';
import type { StreamableHTTPOptions } from './handler-options.js';
import { StreamableHTTPHandler } from './streamable-http-handler.js';

async function expectError(res: Response, status: number, code: number, text: string, id: unknown = null) {
  assert.equal(res.status, status);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  const body = await jsonBody(res);
  assert.equal(body.jsonrpc, '2.0');
  assert.equal(body.id, id);
  assert.equal(body.error.code, code);
  assert.ok(body.error.message.includes(text), `"${body.error.message}" should include "${text}"`);
}

describe('StreamableHTTPHandler: HTTP rules', () => {
  let served: Served;
  const errors: Error[] = [];

  before(async () => {
    ({ served } = await serveTestServer({ maxBodyBytes: 2048, onerror: (e) => errors.push(e) }));
  });
  after(() => served.close());

  test('initialize creates a session whose id is 128+ random bits of visible ASCII, answered with one JSON body', async () => {
    const res = await post(served.url, initializeRequest(1));
    assert.equal(res.status, 200);
    // Nothing to stream while initializing: no SSE stream, so no event kept for an idle session.
    assert.equal(res.headers.get('content-type'), 'application/json');
    const id = res.headers.get('mcp-session-id')!;
    assert.match(id, /^[A-Za-z0-9_-]{22,}$/);
    const result = (await res.json()) as any;
    assert.equal(result.id, 1);
    assert.equal(result.result.protocolVersion, '2025-11-25');
    const other = await openSession(served.url);
    assert.notEqual(other, id);
  });

  test('an answer known at once is one SSE body with a Content-Length; one that waits is streamed', async () => {
    const sessionId = await openSession(served.url);
    const now = await post(served.url, toolCall(2, 'echo', { text: 'hi' }), { sessionId });
    assert.equal(now.headers.get('content-type'), 'text/event-stream');
    assert.equal(now.headers.get('transfer-encoding'), null);
    const body = await now.text();
    assert.equal(Number(now.headers.get('content-length')), Buffer.byteLength(body));
    const events = parseSse(body);
    // The priming event (an id, retry, no data), then the result, with its own id.
    assert.equal(events.length, 2);
    assert.equal(events[0].data, '');
    assert.ok(events[0].id !== undefined && events[1].id !== undefined);
    assert.equal(JSON.parse(events[1].data).result.content[0].text, 'hi');

    const later = await post(served.url, toolCall(3, 'burst', { count: 3, every: 1 }), { sessionId });
    assert.equal(later.headers.get('content-length'), null);
    const messages = await sseMessages(later);
    assert.deepEqual(
      messages.map((m) => m.method ?? m.result.content[0].text),
      ['notifications/message', 'notifications/message', 'notifications/message', 'sent 3'],
    );
  });

  test('a notification alone gets 202 with no body', async () => {
    const sessionId = await openSession(served.url);
    const res = await post(
      served.url,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { sessionId },
    );
    assert.equal(res.status, 202);
    assert.equal(await res.text(), '');
  });

  test('a response gets 202 when it answers a request of the session, late or not; 400 -32600 when it answers nothing', async () => {
    const sessionId = await openSession(served.url, '2025-11-25', { sampling: {} });
    const call = new SSEReader(await post(served.url, toolCall(7, 'ask'), { sessionId }));
    const asked = (await call.nextMessage())!.message;
    assert.equal(asked.method, 'sampling/createMessage');
    const nothing = { jsonrpc: '2.0', id: 4242, result: {} };
    await expectError(
      await post(served.url, nothing, { sessionId }),
      400,
      -32600,
      'the response with id 4242 answers nothing; this session sent no request with that id',
    );
    const answer = {
      jsonrpc: '2.0',
      id: asked.id,
      result: { role: 'assistant', content: { type: 'text', text: 'yes' }, model: 'm' },
    };
    const answered = await post(served.url, answer, { sessionId });
    assert.equal(answered.status, 202);
    assert.equal(await answered.text(), '');
    assert.equal((await call.nextMessage())!.message.result.content[0].text, 'sampled: yes');
    // The same answer again is late, not unasked: accepted and dropped.
    assert.equal((await post(served.url, answer, { sessionId })).status, 202);
    // An error response with a null id (the client could not read something) answers nothing and is accepted.
    const unreadable = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
    assert.equal((await post(served.url, unreadable, { sessionId })).status, 202);
  });

  test('an invalid answer to a request of the session: 400 -32600, and that request fails at once saying why', async () => {
    const sessionId = await openSession(served.url, '2025-11-25', { sampling: {} });
    const call = new SSEReader(await post(served.url, toolCall(8, 'ask'), { sessionId }));
    const asked = (await call.nextMessage())!.message;
    assert.equal(asked.method, 'sampling/createMessage');
    await expectError(
      await post(served.url, { jsonrpc: '2.0', id: asked.id, result: 'yes' }, { sessionId }),
      400,
      -32600,
      '"result" must be an object',
      asked.id,
    );
    const failed = (await call.nextMessage())!.message;
    assert.equal(failed.id, 8);
    assert.equal(failed.error.code, -32603);
    assert.equal(
      failed.error.message,
      'The answer to "sampling/createMessage" is not a valid JSON-RPC response: "result" must be an object',
    );
  });

  test('a response POSTed with a 2026-07-28 header is 400 -32600: that revision asks clients nothing', async () => {
    await expectError(
      await post(
        served.url,
        { jsonrpc: '2.0', id: 5, result: {} },
        { headers: { 'mcp-protocol-version': '2026-07-28' } },
      ),
      400,
      -32600,
      'from 2026-07-28 on a server sends no requests (it asks through input_required results)',
    );
  });

  test('Accept must list both media types for POST (406) and text/event-stream for GET', async () => {
    const sessionId = await openSession(served.url);
    await expectError(
      await post(served.url, toolCall(1, 'echo', { text: 'x' }), {
        sessionId,
        headers: { accept: 'application/json' },
      }),
      406,
      -32000,
      'Not Acceptable',
    );
    await expectError(
      await get(served.url, sessionId, { headers: { accept: 'application/json' } }),
      406,
      -32000,
      'text/event-stream',
    );
  });

  test('Content-Type must be application/json (415)', async () => {
    await expectError(
      await post(served.url, initializeRequest(), { headers: { 'content-type': 'text/plain' } }),
      415,
      -32000,
      'Unsupported Media Type',
    );
  });

  test('an unsupported MCP-Protocol-Version is 400; a supported one differing from the session is served', async () => {
    const sessionId = await openSession(served.url);
    await expectError(
      await post(served.url, toolCall(1, 'echo', { text: 'x' }), {
        sessionId,
        headers: { 'mcp-protocol-version': '1999-01-01' },
      }),
      400,
      -32000,
      'unsupported MCP-Protocol-Version "1999-01-01"',
    );
    const res = await post(served.url, toolCall(2, 'echo', { text: 'x' }), {
      sessionId,
      headers: { 'mcp-protocol-version': '2025-03-26' },
    });
    assert.equal(res.status, 200);
    const messages = await sseMessages(res);
    assert.equal(messages.at(-1).id, 2);
  });

  test('a body over the limit is 413, counted on bytes read', async () => {
    await expectError(
      await post(served.url, { ...initializeRequest(), pad: 'x'.repeat(4000) }),
      413,
      -32000,
      'Payload Too Large',
    );
  });

  test('a POST whose serving throws once its body is read is answered 500 and reported; the next is served', async () => {
    const reported: Error[] = [];
    const { server, served: own } = await serveTestServer({ onerror: (e) => reported.push(e) });
    try {
      server.onsession = () => {
        throw new Error('the onsession hook failed');
      };
      await expectError(
        await post(own.url, initializeRequest(1)),
        500,
        -32603,
        'the onsession hook failed',
        null,
      );
      assert.deepEqual(
        reported.map((e) => e.message),
        ['the onsession hook failed'],
      );
      server.onsession = undefined;
      const res = await post(own.url, initializeRequest(2));
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { id: number }).id, 2);
    } finally {
      await own.close();
    }
  });

  test('invalid JSON is 400 with -32700; a wrong shape is 400 with -32600', async () => {
    await expectError(await post(served.url, '{"jsonrpc":'), 400, -32700, 'Parse error');
    await expectError(
      await post(served.url, { jsonrpc: '1.0', id: 3, method: 'x' }),
      400,
      -32600,
      '"jsonrpc"',
      3,
    );
  });

  test('session id rules: missing → 400, unknown → 404, initialize with one → 400', async () => {
    await expectError(
      await post(served.url, toolCall(1, 'echo')),
      400,
      -32000,
      'Mcp-Session-Id header is required',
    );
    await expectError(
      await post(served.url, toolCall(1, 'echo'), { sessionId: 'no-such-session' }),
      404,
      -32000,
      'start a new session',
    );
    const sessionId = await openSession(served.url);
    await expectError(
      await post(served.url, initializeRequest(7), { sessionId }),
      400,
      -32600,
      'initialize must be sent without an Mcp-Session-Id',
      7,
    );
    await expectError(await get(served.url, undefined), 400, -32000, 'Mcp-Session-Id header is required');
    await expectError(await get(served.url, 'nope'), 404, -32000, 'does not exist');
  });

  test('batches: refused at 2025-11-25 naming the version, served at 2025-03-26', async () => {
    const modern = await openSession(served.url);
    await expectError(
      await post(served.url, [toolCall(1, 'echo', { text: 'a' }), toolCall(2, 'echo', { text: 'b' })], {
        sessionId: modern,
      }),
      400,
      -32600,
      'protocol version 2025-11-25',
    );
    const old = await openSession(served.url, '2025-03-26');
    const res = await post(
      served.url,
      [toolCall(1, 'echo', { text: 'a' }), toolCall(2, 'echo', { text: 'b' })],
      {
        sessionId: old,
      },
    );
    assert.equal(res.status, 200);
    const ids = (await sseMessages(res)).map((m) => m.id).sort();
    assert.deepEqual(ids, [1, 2]);
  });

  test('a request id already in flight in the session is refused with 400', async () => {
    const sessionId = await openSession(served.url);
    const first = await post(served.url, toolCall(5, 'wait', { gate: 'never-dup' }), { sessionId });
    assert.equal(first.status, 200);
    await expectError(
      await post(served.url, toolCall(5, 'echo', { text: 'x' }), { sessionId }),
      400,
      -32600,
      'already used by a request in flight',
      5,
    );
    await first.body?.cancel();
  });

  test('other methods are 405 with an Allow header', async () => {
    const res = await fetch(served.url, { method: 'PUT' });
    assert.equal(res.headers.get('allow'), 'GET, POST, DELETE');
    await expectError(res, 405, -32000, 'Method Not Allowed');
  });

  test('DELETE ends the session: 204, then 404', async () => {
    const sessionId = await openSession(served.url);
    const res = await fetch(served.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    assert.equal(res.status, 204);
    await expectError(
      await post(served.url, toolCall(1, 'echo', { text: 'x' }), { sessionId }),
      404,
      -32000,
      'Not Found',
    );
    await expectError(
      await fetch(served.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } }),
      404,
      -32000,
      'Not Found',
    );
  });

  test('DNS rebinding: a foreign Host is 421, a foreign Origin 403; loopback names pass', async () => {
    const body = JSON.stringify(initializeRequest());
    const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const host = await rawRequest(served.port, 'POST', { ...base, host: 'evil.example:80' }, body);
    assert.equal(host.status, 421);
    assert.match(JSON.parse(host.body).error.message, /Host "evil.example:80" is not allowed/);
    const origin = await rawRequest(
      served.port,
      'POST',
      { ...base, host: `localhost:${served.port}`, origin: 'http://evil.example' },
      body,
    );
    assert.equal(origin.status, 403);
    assert.match(JSON.parse(origin.body).error.message, /Origin "http:\/\/evil.example" is not allowed/);
    const ok = await rawRequest(
      served.port,
      'POST',
      { ...base, host: `localhost:${served.port}`, origin: 'http://localhost:6274' },
      body,
    );
    assert.equal(ok.status, 200);
  });

  test('DNS rebinding: a request let in does not let in the next one with another Host or Origin', async () => {
    const body = JSON.stringify(initializeRequest());
    const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const good = { ...base, host: `localhost:${served.port}`, origin: 'http://localhost:6274' };
    for (const [headers, status] of [
      [good, 200],
      [{ ...good, host: 'evil.example' }, 421],
      [good, 200],
      [{ ...good, origin: 'http://evil.example' }, 403],
      [{ ...base, host: `localhost:${served.port}` }, 200],
      [{ ...base, host: `127.0.0.1:${served.port}`, origin: 'http://evil.example' }, 403],
    ] as const) {
      assert.equal(
        (await rawRequest(served.port, 'POST', headers, body)).status,
        status,
        JSON.stringify(headers),
      );
    }
  });

  test('every refusal reaches onerror as an HTTPRejectionError', async () => {
    errors.length = 0;
    await (await post(served.url, toolCall(1, 'echo'), { sessionId: 'unknown' })).text();
    const refusal = errors.find((e) => e instanceof HTTPRejectionError) as HTTPRejectionError;
    assert.equal(refusal.status, 404);
  });
});

describe('StreamableHTTPHandler: sessions', () => {
  const serve = async (options: StreamableHTTPOptions = {}, principalHeader = false) => {
    const handler = new StreamableHTTPHandler(createTestServer(), options);
    const served = await serveOn((req, res) => {
      const exchange = fromNode(req, res);
      if (principalHeader) exchange.principal = req.headers['x-user'];
      handler.handle(exchange);
    });
    return { handler, served };
  };

  test('a large answer (sent as one buffer) arrives whole, multi-byte text included, in SSE and JSON', async () => {
    const text = `${'é'.repeat(40_000)}${'x'.repeat(40_000)}🙂`;
    for (const jsonResponse of [false, true]) {
      const { served } = await serve({ jsonResponse });
      try {
        const sessionId = await openSession(served.url);
        const res = await post(served.url, toolCall(2, 'echo', { text }), { sessionId });
        const body = await res.text();
        assert.equal(Number(res.headers.get('content-length')), Buffer.byteLength(body));
        const answer = jsonResponse ? JSON.parse(body) : JSON.parse(parseSse(body).at(-1)!.data);
        assert.equal(answer.result.content[0].text, text);
      } finally {
        await served.close();
      }
    }
  });

  test('a failed initialize leaves no session behind and sends no session id', async () => {
    const { handler, served } = await serve();
    try {
      const res = await post(served.url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
      assert.equal(res.headers.get('mcp-session-id'), null);
      const answer = (await res.json()) as any;
      assert.equal(answer.error.code, -32602);
      assert.equal(handler.sessionCount, 0);
    } finally {
      await served.close();
    }
  });

  test('a session is bound to the principal that created it: any other gets 404', async () => {
    const { served } = await serve({}, true);
    try {
      const sessionId = await openSession(served.url, '2025-11-25', {}, { 'x-user': 'alice' });
      await expectError(
        await post(served.url, toolCall(1, 'echo', { text: 'x' }), {
          sessionId,
          headers: { 'x-user': 'bob' },
        }),
        404,
        -32000,
        'does not exist',
      );
      await expectError(
        await post(served.url, toolCall(1, 'echo', { text: 'x' }), { sessionId }),
        404,
        -32000,
        'Not Found',
      );
      const own = await post(served.url, toolCall(2, 'echo', { text: 'x' }), {
        sessionId,
        headers: { 'x-user': 'alice' },
      });
      assert.equal(own.status, 200);
      assert.equal((await sseMessages(own)).at(-1).result.content[0].text, 'x');
    } finally {
      await served.close();
    }
  });

  test("a tool handler sees its POST's headers in ctx.transport.headers, in every mode", async () => {
    const modes: StreamableHTTPOptions[] = [
      {},
      { eventStore: null },
      { jsonResponse: true },
      { stateless: true },
    ];
    for (const options of modes) {
      const server = createTestServer();
      server.tool({ name: 'headers', inputSchema: { type: 'object' } }, (_args, ctx) => ({
        content: [
          {
            type: 'text',
            text: JSON.stringify([ctx.transport?.headers?.['x-custom'], ctx.transport?.principal]),
          },
        ],
      }));
      const handler = new StreamableHTTPHandler(server, options);
      const served = await serveOn((req, res) => {
        const exchange = fromNode(req, res);
        exchange.principal = 'alice';
        handler.handle(exchange);
      });
      try {
        const sessionId = options.stateless ? undefined : await openSession(served.url);
        const res = await post(served.url, toolCall(1, 'headers'), {
          sessionId,
          headers: { 'X-Custom': 'hello' },
        });
        const answer = options.jsonResponse ? await jsonBody(res) : (await sseMessages(res)).at(-1);
        assert.deepEqual(
          JSON.parse(answer.result.content[0].text),
          ['hello', 'alice'],
          JSON.stringify(options),
        );
      } finally {
        await served.close();
      }
    }
  });

  test('past maxSessions, every session busy, an initialize gets 503 and no session', async () => {
    const { handler, served } = await serve({ maxSessions: 2 });
    try {
      // Each holds its GET stream, so none is idle and none makes room (see legacy/session-table.test.ts).
      const streams: SSEReader[] = [];
      for (let i = 0; i < 2; i++) {
        const stream = new SSEReader(await get(served.url, await openSession(served.url)));
        await stream.next();
        streams.push(stream);
      }
      await expectError(await post(served.url, initializeRequest()), 503, -32000, 'maximum of 2 sessions');
      assert.equal(handler.sessionCount, 2);
      for (const stream of streams) await stream.cancel();
    } finally {
      await served.close();
    }
  });

  test('without an event store there are no event ids, no priming event, and Last-Event-ID is refused', async () => {
    const { served } = await serve({ eventStore: null });
    try {
      const sessionId = await openSession(served.url);
      const res = await post(served.url, toolCall(1, 'echo', { text: 'x' }), { sessionId });
      const text = await res.text();
      assert.doesNotMatch(text, /^id:/m);
      assert.match(text, /^data: \{"jsonrpc":"2.0","id":1/m);
      await expectError(
        await get(served.url, sessionId, { lastEventId: 'a_1' }),
        400,
        -32000,
        'keeps no event store',
      );
    } finally {
      await served.close();
    }
  });
});
