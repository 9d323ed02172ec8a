import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  get,
  initializeRequest,
  jsonBody,
  openSession,
  post,
  SseReader,
  serveOn,
  sseMessages,
} from '../../test-support/mcp-http.js';
import { createTestServer } from '../../test-support/streamable-fixture.js';
import { StreamUnavailableError } from './errors.js';
import { StreamableHTTPHandler } from './handler.js';

const call = (id: number | string, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('JSON-response mode', () => {
  test('a request gets one application/json body; batches (2025-03-26) get an array', async () => {
    const served = await serveOn(
      new StreamableHTTPHandler(createTestServer(), { jsonResponse: true }).node(),
    );
    try {
      const init = await post(served.url, initializeRequest(1));
      assert.equal(init.headers.get('content-type'), 'application/json');
      assert.ok(init.headers.get('mcp-session-id'));
      assert.equal((await jsonBody(init)).result.protocolVersion, '2025-11-25');
      const sessionId = await openSession(served.url);
      const res = await post(served.url, call(2, 'echo', { text: 'hi' }), { sessionId });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json');
      const body = await jsonBody(res);
      assert.equal(body.id, 2);
      assert.equal(body.result.content[0].text, 'hi');
      const old = await openSession(served.url, '2025-03-26');
      const batch = await post(served.url, [call(1, 'echo', { text: 'a' }), call(2, 'echo', { text: 'b' })], {
        sessionId: old,
      });
      const answers = await jsonBody(batch);
      assert.ok(Array.isArray(answers));
      assert.deepEqual(answers.map((a: { id: number }) => a.id).sort(), [1, 2]);
    } finally {
      await served.close();
    }
  });

  test('logs and sampling made during a request travel on the GET stream when the client holds one', async () => {
    const served = await serveOn(
      new StreamableHTTPHandler(createTestServer(), { jsonResponse: true }).node(),
    );
    try {
      const sessionId = await openSession(served.url, '2025-11-25', { sampling: {} });
      const stream = new SseReader(await get(served.url, sessionId));
      await stream.next();
      const answer = post(served.url, call(1, 'ask'), { sessionId });
      const sampling = await stream.nextMessage();
      assert.equal(sampling?.message.method, 'sampling/createMessage');
      const reply = await post(
        served.url,
        {
          jsonrpc: '2.0',
          id: sampling!.message.id,
          result: { role: 'assistant', content: { type: 'text', text: 'yes' }, model: 'm' },
        },
        { sessionId },
      );
      assert.equal(reply.status, 202);
      const body = await jsonBody(await answer);
      assert.equal(body.result.content[0].text, 'sampled: yes');

      const waiting = await post(served.url, call(2, 'burst', { count: 2 }), { sessionId });
      assert.equal((await jsonBody(waiting)).id, 2);
      assert.equal((await stream.nextMessage())?.message.params.data, 0);
      assert.equal((await stream.nextMessage())?.message.params.data, 1);
      await stream.cancel();
    } finally {
      await served.close();
    }
  });

  test('without a GET stream, sampling fails at once with StreamUnavailableError and logs go to onerror', async () => {
    const errors: Error[] = [];
    const server = createTestServer();
    const handler = new StreamableHTTPHandler(server, { jsonResponse: true, onerror: (e) => errors.push(e) });
    const served = await serveOn(handler.node());
    try {
      const sessionId = await openSession(served.url, '2025-11-25', { sampling: {} });
      const started = Date.now();
      const res = await post(served.url, call(1, 'ask'), { sessionId });
      const body = await jsonBody(res);
      assert.ok(Date.now() - started < 1000, 'no timer wait');
      assert.equal(body.result.isError, true);
      assert.match(body.result.content[0].text, /holds none; the client must open one with GET/);
      assert.ok(
        errors.every((e) => !(e instanceof StreamUnavailableError) || e.method !== 'sampling/createMessage'),
      );
      const logs = await post(served.url, call(2, 'burst', { count: 1 }), { sessionId });
      assert.equal((await jsonBody(logs)).result.content[0].text, 'sent 1');
      const dropped = errors.find((e) => e instanceof StreamUnavailableError) as StreamUnavailableError;
      assert.equal(dropped.method, 'notifications/message');
      assert.equal(dropped.reason, 'no-get-stream');
    } finally {
      await served.close();
    }
  });
});

describe('stateless mode', () => {
  test('each POST works without session ids; GET and DELETE are 405', async () => {
    const handler = new StreamableHTTPHandler(createTestServer(), { stateless: true });
    const served = await serveOn(handler.node());
    try {
      const init = await post(served.url, initializeRequest(1));
      assert.equal(init.status, 200);
      assert.equal(init.headers.get('mcp-session-id'), null);
      assert.equal((await sseMessages(init))[0].result.protocolVersion, '2025-11-25');
      const res = await post(served.url, call(2, 'burst', { count: 2 }), {
        headers: { 'mcp-protocol-version': '2025-11-25' },
      });
      const messages = await sseMessages(res);
      assert.deepEqual(
        messages.map((m) => m.method ?? m.id),
        ['notifications/message', 'notifications/message', 2],
      );
      const note = await post(served.url, { jsonrpc: '2.0', method: 'notifications/initialized' });
      assert.equal(note.status, 202);
      for (const method of ['GET', 'DELETE']) {
        const refused = await fetch(served.url, { method, headers: { accept: 'text/event-stream' } });
        assert.equal(refused.status, 405);
        assert.equal(refused.headers.get('allow'), 'POST');
        assert.match((await jsonBody(refused)).error.message, /stateless/);
      }
      assert.equal(handler.sessionCount, 0);
    } finally {
      await served.close();
    }
  });

  test('a server-to-client request fails at once with a typed error that says why', async () => {
    const server = createTestServer();
    const errors: Error[] = [];
    const served = await serveOn(
      new StreamableHTTPHandler(server, { stateless: true, onerror: (e) => errors.push(e) }).node(),
    );
    try {
      // Stateless sessions know no client capabilities unless the POST was initialize; ask the session
      // directly through a tool registered to call the transport regardless of capabilities.
      server.tool({ name: 'raw-ask' }, async (_args, ctx) => {
        await ctx.request('sampling/createMessage', { messages: [], maxTokens: 1 });
        return { content: [] };
      });
      const started = Date.now();
      const res = await post(served.url, call(1, 'raw-ask'));
      const [answer] = await sseMessages(res);
      assert.ok(Date.now() - started < 1000, 'no timer wait');
      assert.equal(answer.result.isError, true);
      assert.match(answer.result.content[0].text, /stateless mode/);
      assert.equal(server.sessions.size, 0, 'the temporary session was closed');
    } finally {
      await served.close();
    }
  });
});

test('the web adapter: handler.fetch(Request) serves initialize and a tool call', async () => {
  const handler = new StreamableHTTPHandler(createTestServer());
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await handler.fetch(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers,
      body: JSON.stringify(initializeRequest(1)),
    }),
  );
  assert.equal(init.status, 200);
  const sessionId = init.headers.get('mcp-session-id')!;
  assert.equal((await sseMessages(init))[0].id, 1);
  const res = await handler.fetch(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': sessionId },
      body: JSON.stringify(call(2, 'echo', { text: 'web' })),
    }),
  );
  const messages = await sseMessages(res);
  assert.equal(messages.at(-1).result.content[0].text, 'web');
  const foreign = await handler.fetch(
    new Request('http://evil.example/mcp', {
      method: 'POST',
      headers,
      body: JSON.stringify(initializeRequest(1)),
    }),
  );
  assert.equal(foreign.status, 421);
  await handler.close();
});
