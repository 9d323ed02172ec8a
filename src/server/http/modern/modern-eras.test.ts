import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { RequestCancelledError } from '../../../peer/errors.js';
import {
  get,
  initializeRequest,
  jsonBody,
  openSession,
  post,
  SSEReader,
  serveOn,
  sseMessages,
  toolCall,
} from '../../../test-support/mcp-http.js';
import { modernMessage, postModern } from '../../../test-support/modern-http.js';
import { Server } from '../../server.js';
import type { StreamableHTTPOptions } from '../handler-options.js';
import { StreamableHTTPHandler } from '../streamable-http-handler.js';

/*
 * Both eras on one endpoint: a modern request is served on its own (cancelled by closing its response, blind
 * to any session it names), legacy sessions keep working beside it, and `eras` narrows the endpoint to one.
 */

interface Probe {
  started: Promise<AbortSignal>;
  afterAbort: Promise<void>;
}

function makeServer() {
  let begin!: (signal: AbortSignal) => void;
  let aborted!: () => void;
  const probe: Probe = {
    started: new Promise((r) => {
      begin = r;
    }),
    afterAbort: new Promise((r) => {
      aborted = r;
    }),
  };
  const server = new Server({ name: 'eras', version: '1.0.0' });
  server.tool(
    { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    (args) => ({ content: [{ type: 'text', text: String(args.text) }] }),
  );
  server.tool({ name: 'greet', inputSchema: { type: 'object' } }, async (_args, ctx) => {
    const reply = await ctx.elicit({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    return { content: [{ type: 'text', text: `Hello ${String(reply.content?.name)}` }] };
  });
  server.tool({ name: 'hang', inputSchema: { type: 'object' } }, async (_args, ctx) => {
    begin(ctx.signal);
    await new Promise((r) => ctx.signal.addEventListener('abort', r));
    // Work that goes on after the cancel: it must not reach the closed response.
    await ctx.notify('notifications/message', { level: 'info', data: 'too late' });
    aborted();
    return { content: [{ type: 'text', text: 'finished anyway' }] };
  });
  return { server, probe };
}

/** Records what a handler writes to a response after the client closed it. */
function watchWrites(
  listener: (req: IncomingMessage, res: ServerResponse) => void,
  late: string[],
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    for (const name of ['write', 'writeHead', 'end'] as const) {
      const original = res[name].bind(res) as (...args: unknown[]) => unknown;
      (res as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        if (closed && !res.writableEnded) late.push(name);
        return original(...args);
      };
    }
    listener(req, res);
  };
}

async function serve(options: StreamableHTTPOptions = {}) {
  const { server, probe } = makeServer();
  const errors: Error[] = [];
  const late: string[] = [];
  const handler = new StreamableHTTPHandler(server, { ...options, onerror: (e) => errors.push(e) });
  const served = await serveOn(watchWrites(handler.node(), late));
  return { server, probe, handler, served, errors, late };
}

describe('both eras on one endpoint', () => {
  let ctx: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    ctx = await serve();
  });
  after(() => ctx.served.close());

  test("closing the response mid-call aborts the handler's signal, and nothing more is written", async () => {
    const abort = new AbortController();
    const pending = postModern(
      ctx.served.url,
      1,
      'tools/call',
      { name: 'hang', arguments: {} },
      { signal: abort.signal },
    );
    const signal = await ctx.probe.started;
    assert.equal(signal.aborted, false);
    abort.abort();
    await assert.rejects(pending);
    await ctx.probe.afterAbort;
    assert.equal(signal.aborted, true);
    assert.ok(signal.reason instanceof RequestCancelledError);
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(ctx.late, []);
  });

  test('a modern request naming a live legacy session neither reads nor changes it', async () => {
    const sessionId = await openSession(ctx.served.url, '2025-11-25', { elicitation: {} });
    assert.equal(ctx.handler.sessionCount, 1);
    // The session declared elicitation; this request did not, and the session's capabilities do not count.
    const res = await postModern(
      ctx.served.url,
      2,
      'tools/call',
      { name: 'greet', arguments: {} },
      { headers: { 'mcp-session-id': sessionId } },
    );
    assert.equal(res.status, 400);
    assert.equal((await jsonBody(res)).error.code, -32021);
    assert.equal(res.headers.get('mcp-session-id'), null);
    // An unknown session id is no reason to refuse a modern request either.
    const unknown = await postModern(
      ctx.served.url,
      3,
      'tools/call',
      { name: 'echo', arguments: { text: 'ok' } },
      { headers: { 'mcp-session-id': 'no-such-session' } },
    );
    assert.equal(unknown.status, 200);
    assert.equal(unknown.headers.get('mcp-session-id'), null);
    assert.equal((await jsonBody(unknown)).result.content[0].text, 'ok');
    // The session is as it was.
    assert.equal(ctx.handler.sessionCount, 1);
    const legacy = await sseMessages(
      await post(ctx.served.url, toolCall(4, 'echo', { text: 'still' }), { sessionId }),
    );
    assert.equal(legacy[0].result.content[0].text, 'still');
    assert.equal(legacy[0].result.resultType, undefined, 'legacy results are left as 2025 had them');
  });

  test('a legacy session keeps working at the same time: tools/call with elicitation as a server request', async () => {
    const sessionId = await openSession(ctx.served.url, '2025-11-25', { elicitation: {} });
    const stream = new SSEReader(await post(ctx.served.url, toolCall(5, 'greet'), { sessionId }));
    const ask = await stream.nextMessage();
    assert.equal(ask?.message.method, 'elicitation/create');
    // Meanwhile a modern request on the same endpoint is served on its own.
    const modern = await postModern(ctx.served.url, 6, 'tools/call', {
      name: 'echo',
      arguments: { text: 'beside' },
    });
    assert.equal((await jsonBody(modern)).result.content[0].text, 'beside');
    const answer = await post(
      ctx.served.url,
      { jsonrpc: '2.0', id: ask?.message.id, result: { action: 'accept', content: { name: 'Ada' } } },
      { sessionId },
    );
    assert.equal(answer.status, 202);
    const done = await stream.nextMessage();
    assert.equal(done?.message.id, 5);
    assert.equal(done?.message.result.content[0].text, 'Hello Ada');
  });

  test('the modern MRTR round of the same tool goes through input_required instead', async () => {
    const res = await postModern(
      ctx.served.url,
      7,
      'tools/call',
      { name: 'greet', arguments: {} },
      { capabilities: { elicitation: {} } },
    );
    const first = (await jsonBody(res)).result;
    assert.equal(first.resultType, 'input_required');
    const retry = await postModern(
      ctx.served.url,
      8,
      'tools/call',
      {
        name: 'greet',
        arguments: {},
        requestState: first.requestState,
        inputResponses: {
          [Object.keys(first.inputRequests)[0]]: { action: 'accept', content: { name: 'Bo' } },
        },
      },
      { capabilities: { elicitation: {} } },
    );
    assert.equal((await jsonBody(retry)).result.content[0].text, 'Hello Bo');
  });
});

describe("eras: 'modern'", () => {
  let ctx: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    ctx = await serve({ eras: 'modern' });
  });
  after(() => ctx.served.close());

  test('refuses initialize with -32022 listing the modern versions', async () => {
    const res = await post(ctx.served.url, initializeRequest(9));
    assert.equal(res.status, 400);
    const body = await jsonBody(res);
    assert.equal(body.id, 9);
    assert.equal(body.error.code, -32022);
    assert.deepEqual(body.error.data.supported, ['2026-07-28']);
    assert.equal(res.headers.get('mcp-session-id'), null);
    assert.equal(ctx.handler.sessionCount, 0);
  });

  test('answers GET and DELETE with 405', async () => {
    const res = await get(ctx.served.url, undefined);
    assert.equal(res.status, 405);
    await res.text();
    const del = await fetch(ctx.served.url, { method: 'DELETE' });
    assert.equal(del.status, 405);
    await del.text();
  });

  test('serves modern requests', async () => {
    const res = await postModern(ctx.served.url, 10, 'tools/call', {
      name: 'echo',
      arguments: { text: 'm' },
    });
    assert.equal((await jsonBody(res)).result.content[0].text, 'm');
  });
});

describe("eras: 'legacy'", () => {
  let ctx: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    ctx = await serve({ eras: 'legacy' });
  });
  after(() => ctx.served.close());

  test('a request claiming 2026-07-28 is a sessionless legacy request, refused as such', async () => {
    const res = await postModern(ctx.served.url, 11, 'tools/call', {
      name: 'echo',
      arguments: { text: 'x' },
    });
    assert.equal(res.status, 400);
    const body = await jsonBody(res);
    assert.equal(body.result, undefined);
    assert.notEqual(body.error.code, -32022);
    assert.notEqual(body.error.code, -32020);
  });

  test('the claim inside a session changes nothing: the answer is a 2025 result', async () => {
    const sessionId = await openSession(ctx.served.url);
    const res = await post(
      ctx.served.url,
      modernMessage(12, 'tools/call', { name: 'echo', arguments: { text: 'y' } }),
      {
        sessionId,
        headers: { 'mcp-protocol-version': '2025-11-25' },
      },
    );
    const [answer] = await sseMessages(res);
    assert.equal(answer.result.content[0].text, 'y');
    assert.equal(answer.result.resultType, undefined);
    const discover = await sseMessages(
      await post(ctx.served.url, modernMessage(13, 'server/discover'), {
        sessionId,
        headers: { 'mcp-protocol-version': '2025-11-25' },
      }),
    );
    assert.equal(discover[0].error.code, -32601);
  });
});
