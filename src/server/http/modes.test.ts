import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { describe, test } from 'node:test';
import {
  ACCEPT_BOTH,
  get,
  initializeRequest,
  jsonBody,
  openSession,
  parseSse,
  post,
  SSEReader,
  sseMessages,
  toolCall,
} from '../../test-support/mcp-http.js';
import { createTestServer, serveTestServer } from '../../test-support/streamable-fixture.js';
import { StreamUnavailableError } from './errors.js';
import { StreamableHTTPHandler } from './streamable-http-handler.js';

const getHeaders = (sessionId: string) => ({ accept: 'text/event-stream', 'mcp-session-id': sessionId });

/** POSTs `body` with node:http and resolves with the JSON answer once its last byte was read. */
function rawPost(port: string, agent: Agent, sessionId: string, body: unknown): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-session-id': sessionId },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve(JSON.parse(text)));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('JSON-response mode', () => {
  test('a request gets one application/json body; batches (2025-03-26) get an array', async () => {
    const { served } = await serveTestServer({ jsonResponse: true });
    try {
      const init = await post(served.url, initializeRequest(1));
      assert.equal(init.headers.get('content-type'), 'application/json');
      assert.ok(init.headers.get('mcp-session-id'));
      assert.equal((await jsonBody(init)).result.protocolVersion, '2025-11-25');
      const sessionId = await openSession(served.url);
      const res = await post(served.url, toolCall(2, 'echo', { text: 'hi' }), { sessionId });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json');
      const body = await jsonBody(res);
      assert.equal(body.id, 2);
      assert.equal(body.result.content[0].text, 'hi');
      const old = await openSession(served.url, '2025-03-26');
      const batch = await post(
        served.url,
        [toolCall(1, 'echo', { text: 'a' }), toolCall(2, 'echo', { text: 'b' })],
        {
          sessionId: old,
        },
      );
      const answers = await jsonBody(batch);
      assert.ok(Array.isArray(answers));
      assert.deepEqual(answers.map((a: { id: number }) => a.id).sort(), [1, 2]);
    } finally {
      await served.close();
    }
  });

  test('logs and sampling made during a request travel on the GET stream when the client holds one', async () => {
    const { served } = await serveTestServer({ jsonResponse: true });
    try {
      const sessionId = await openSession(served.url, '2025-11-25', { sampling: {} });
      const stream = new SSEReader(await get(served.url, sessionId));
      await stream.next();
      const answer = post(served.url, toolCall(1, 'ask'), { sessionId });
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

      const waiting = await post(served.url, toolCall(2, 'burst', { count: 2 }), { sessionId });
      assert.equal((await jsonBody(waiting)).id, 2);
      assert.equal((await stream.nextMessage())?.message.params.data, 0);
      assert.equal((await stream.nextMessage())?.message.params.data, 1);
      await stream.cancel();
    } finally {
      await served.close();
    }
  });

  test('progress sent just before the answer reaches the client before it, on every call', {
    timeout: 20_000,
  }, async () => {
    const { server, served } = await serveTestServer({ jsonResponse: true });
    server.tool({ name: 'three-steps', inputSchema: { type: 'object' } }, async (_args, ctx) => {
      // Back to back, the last one right before the answer: nothing but the server's ordering helps.
      for (let step = 1; step <= 3; step++) await ctx.sendProgress(step, 3);
      return { content: [{ type: 'text', text: 'done' }] };
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const { port } = new URL(served.url);
    try {
      const sessionId = await openSession(served.url);
      // What this process parsed, in order, each recorded in the I/O callback that completed it.
      const arrivals: string[] = [];
      let progressSeen = 0;
      let allProgress!: () => void;
      const progressDone = new Promise<void>((resolve) => {
        allProgress = resolve;
      });
      const calls = 50;
      await new Promise<void>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, path: '/mcp', agent: false, headers: getHeaders(sessionId) },
          (res) => {
            let buffer = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              buffer += chunk;
              const cut = buffer.lastIndexOf('\n\n');
              if (cut === -1) return;
              for (const event of parseSse(buffer.slice(0, cut + 2))) {
                if (event.data === '') continue;
                const message = JSON.parse(event.data);
                if (message.method !== 'notifications/progress') continue;
                arrivals.push(`progress ${message.params.progressToken}/${message.params.progress}`);
                if (++progressSeen === calls * 3) allProgress();
              }
              buffer = buffer.slice(cut + 2);
            });
            resolve();
          },
        );
        req.on('error', reject);
        req.end();
      });
      for (let id = 1; id <= calls; id++) {
        const body = {
          ...toolCall(id, 'three-steps'),
          params: { name: 'three-steps', _meta: { progressToken: id } },
        };
        const answer = await rawPost(port, agent, sessionId, body);
        assert.equal(answer.result.content[0].text, 'done');
        arrivals.push(`answer ${answer.id}`);
      }
      await progressDone;
      const late: string[] = [];
      for (let id = 1; id <= calls; id++) {
        const answered = arrivals.indexOf(`answer ${id}`);
        for (let step = 1; step <= 3; step++) {
          if (arrivals.indexOf(`progress ${id}/${step}`) > answered) late.push(`progress ${id}/${step}`);
        }
      }
      assert.deepEqual(late, [], 'every progress notification arrives before its answer');
    } finally {
      agent.destroy();
      await served.close();
    }
  });

  test('GET stream away (reconnecting): relayed messages wait in the store, the answer does not', async () => {
    const { served } = await serveTestServer({ jsonResponse: true });
    try {
      const sessionId = await openSession(served.url);
      const first = new SSEReader(await get(served.url, sessionId));
      const primed = await first.next();
      assert.ok(primed?.id);
      await first.cancel();
      const answer = await post(served.url, toolCall(1, 'burst', { count: 2 }), { sessionId });
      assert.equal((await jsonBody(answer)).result.content[0].text, 'sent 2');
      const resumed = new SSEReader(await get(served.url, sessionId, { lastEventId: primed.id }));
      assert.equal((await resumed.nextMessage())?.message.params.data, 0);
      assert.equal((await resumed.nextMessage())?.message.params.data, 1);
      await resumed.cancel();
    } finally {
      await served.close();
    }
  });

  test('a GET reader that stops reading holds the answer back (RELAY_WAIT_MS at most); ending the session sends it', async () => {
    const { server, served } = await serveTestServer({ jsonResponse: true, eventStore: null });
    // More than loopback's socket buffers hold while the client does not read.
    const big = 'x'.repeat(32 * 1024 * 1024);
    let returned!: () => void;
    const answered = new Promise<void>((resolve) => {
      returned = resolve;
    });
    server.tool({ name: 'big-log', inputSchema: { type: 'object' } }, async (_args, ctx) => {
      await ctx.notify('notifications/message', { level: 'info', data: big });
      returned();
      return { content: [{ type: 'text', text: 'logged' }] };
    });
    const { port } = new URL(served.url);
    try {
      const sessionId = await openSession(served.url);
      await new Promise<void>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, path: '/mcp', agent: false, headers: getHeaders(sessionId) },
          (res) => {
            res.pause();
            resolve();
          },
        );
        req.on('error', reject);
        req.end();
      });
      const answer = post(served.url, toolCall(1, 'big-log'), { sessionId });
      // Only once the tool has answered: a DELETE that overtook the call (another connection) would end it first.
      await answered;
      const first = await Promise.race([
        answer.then(() => 'answered'),
        new Promise((resolve) => setTimeout(resolve, 100, 'waiting')),
      ]);
      assert.equal(first, 'waiting');
      const deleted = await fetch(served.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
      assert.equal(deleted.status, 204);
      const body = await jsonBody(await answer);
      assert.equal(body.result.content[0].text, 'logged');
    } finally {
      await served.close();
    }
  });

  test('without a GET stream, sampling fails at once with StreamUnavailableError and logs go to onerror', async () => {
    const errors: Error[] = [];
    const { served } = await serveTestServer({ jsonResponse: true, onerror: (e) => errors.push(e) });
    try {
      const sessionId = await openSession(served.url, '2025-11-25', { sampling: {} });
      const started = Date.now();
      const res = await post(served.url, toolCall(1, 'ask'), { sessionId });
      const body = await jsonBody(res);
      // Well under the 60 s request timeout it must not wait for; a busy machine can take seconds for a POST.
      assert.ok(Date.now() - started < 20_000, 'no timer wait');
      assert.equal(body.result.isError, true);
      assert.match(body.result.content[0].text, /holds none; the client must open one with GET/);
      assert.ok(
        errors.every((e) => !(e instanceof StreamUnavailableError) || e.method !== 'sampling/createMessage'),
      );
      const logs = await post(served.url, toolCall(2, 'burst', { count: 1 }), { sessionId });
      assert.equal((await jsonBody(logs)).result.content[0].text, 'sent 1');
      const dropped = errors.find((e) => e instanceof StreamUnavailableError) as StreamUnavailableError;
      assert.equal(dropped.method, 'notifications/message');
      assert.equal(dropped.reason, 'no-get-stream');
    } finally {
      await served.close();
    }
  });

  test('a server-wide log to a session with no GET stream reaches no one and reports nothing', async () => {
    const errors: Error[] = [];
    const { server, served } = await serveTestServer({ onerror: (e) => errors.push(e) });
    try {
      await openSession(served.url, '2025-11-25');
      assert.equal(server.log('info', 'to everyone'), 1, 'counted: the session admits the level');
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(errors, []);
    } finally {
      await served.close();
    }
  });
});

describe('stateless mode', () => {
  test('each POST works without session ids; GET and DELETE are 405', async () => {
    const { handler, served } = await serveTestServer({ stateless: true });
    try {
      const init = await post(served.url, initializeRequest(1));
      assert.equal(init.status, 200);
      assert.equal(init.headers.get('mcp-session-id'), null);
      assert.equal((await sseMessages(init))[0].result.protocolVersion, '2025-11-25');
      const res = await post(served.url, toolCall(2, 'burst', { count: 2 }), {
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
    const errors: Error[] = [];
    const { server, served } = await serveTestServer({ stateless: true, onerror: (e) => errors.push(e) });
    try {
      // Stateless sessions know no client capabilities unless the POST was initialize; ask the session
      // directly through a tool registered to call the transport regardless of capabilities.
      server.tool({ name: 'raw-ask' }, async (_args, ctx) => {
        await ctx.request('sampling/createMessage', { messages: [], maxTokens: 1 });
        return { content: [] };
      });
      const started = Date.now();
      const res = await post(served.url, toolCall(1, 'raw-ask'));
      const [answer] = await sseMessages(res);
      // Well under the 60 s request timeout it must not wait for; a busy machine can take seconds for a POST.
      assert.ok(Date.now() - started < 20_000, 'no timer wait');
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
  assert.equal(((await init.json()) as any).id, 1);
  const res = await handler.fetch(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': sessionId },
      body: JSON.stringify(toolCall(2, 'echo', { text: 'web' })),
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
