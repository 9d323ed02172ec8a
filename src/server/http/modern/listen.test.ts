import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { MetaKey } from '../../../protocol/envelope.js';
import { ManualClock } from '../../../test-support/manual-clock.js';
import { jsonBody, postFrom, type Served, SSEReader, serveOn } from '../../../test-support/mcp-http.js';
import { modernHeaders, modernMessage, postModern } from '../../../test-support/modern-http.js';
import { Server } from '../../server.js';
import type { StreamableHTTPOptions } from '../handler-options.js';
import { StreamableHTTPHandler } from '../streamable-http-handler.js';

/*
 * subscriptions/listen over HTTP (spec 2026-07-28, subscriptions): the ack first with the honoured filter,
 * then only what was asked, each tagged with the listen id; a result when the server ends it; bounded counts.
 */

const README = 'demo://readme';

function makeServer(): Server {
  // Tools and resources, no prompts: a filter naming prompts is narrowed.
  const server = new Server({ name: 'listen', version: '1.0.0' });
  server.tool({ name: 'echo' }, () => ({ content: [] }));
  server.resource({ uri: README, name: 'readme' }, (uri) => ({ contents: [{ uri, text: 'hi' }] }));
  return server;
}

let open: { served: Served; handler: StreamableHTTPHandler } | undefined;

async function serve(options: StreamableHTTPOptions = {}) {
  const server = makeServer();
  const errors: Error[] = [];
  const handler = new StreamableHTTPHandler(server, { ...options, onerror: (e) => errors.push(e) });
  const served = await serveOn(handler.node());
  open = { served, handler };
  return { server, handler, served, errors };
}

afterEach(async () => {
  await open?.handler.close({ deadlineMs: 0 });
  await open?.served.close();
  open = undefined;
});

const listen = (url: string, id: string | number, notifications: unknown) =>
  postModern(url, id, 'subscriptions/listen', { notifications });

/** Opens a listen stream and reads its ack. */
async function opened(url: string, id: string | number, notifications: unknown) {
  const res = await listen(url, id, notifications);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const reader = new SSEReader(res);
  const ack = (await reader.nextMessage())?.message;
  return { reader, ack };
}

describe('subscriptions/listen', () => {
  test('acknowledges first, with the filter narrowed to what the server announces', async () => {
    const { served } = await serve();
    const { reader, ack } = await opened(served.url, 'listen-1', {
      toolsListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: [README, README],
    });
    assert.deepEqual(ack, {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: {
        notifications: { toolsListChanged: true, resourceSubscriptions: [README] },
        _meta: { [MetaKey.SubscriptionId]: 'listen-1' },
      },
    });
    await reader.cancel();
  });

  test('delivers what was asked, tagged with the listen id, and nothing else', async () => {
    const { server, served } = await serve();
    const { reader } = await opened(served.url, 7, {
      toolsListChanged: true,
      resourceSubscriptions: [README],
    });
    const tag = { [MetaKey.SubscriptionId]: 7 };

    // Unrequested: a resource list change and an update of another URI. Then a requested one.
    server.resource({ uri: 'demo://other', name: 'other' }, (uri) => ({ contents: [{ uri, text: '' }] }));
    server.resourceUpdated('demo://other');
    server.resourceUpdated(README);
    assert.deepEqual((await reader.nextMessage())?.message, {
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: README, _meta: tag },
    });
    server.tool({ name: 'added' }, () => ({ content: [] }));
    assert.deepEqual((await reader.nextMessage())?.message, {
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: tag },
    });
    await reader.cancel();
  });

  test('sends a keep-alive comment every keepAliveMs', async () => {
    const clock = new ManualClock();
    const { served } = await serve({ clock, keepAliveMs: 500 });
    const res = await listen(served.url, 'k', { toolsListChanged: true });
    const body = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (pattern: RegExp) => {
      while (!pattern.test(text)) {
        const chunk = await body.read();
        if (chunk.done) assert.fail(`the stream ended before ${pattern}: ${text}`);
        text += decoder.decode(chunk.value, { stream: true });
      }
    };
    await readUntil(/acknowledged[^\n]*\n\n/);
    assert.doesNotMatch(text, /^:/m);
    clock.advance(500);
    await readUntil(/^:[^\n]*\n\n/m);
    await body.cancel();
  });

  test('handler.close() ends each stream with the listen result', async () => {
    const { handler, served } = await serve();
    const { reader } = await opened(served.url, 'bye', { toolsListChanged: true });
    const closing = handler.close({ deadlineMs: 0 });
    assert.deepEqual((await reader.nextMessage())?.message, {
      jsonrpc: '2.0',
      id: 'bye',
      result: { resultType: 'complete', _meta: { [MetaKey.SubscriptionId]: 'bye' } },
    });
    assert.equal(await reader.nextMessage(), undefined, 'the stream ends after the result');
    await closing;
  });

  test('an empty honoured filter gets the ack and the result at once', async () => {
    const { served } = await serve();
    const { reader, ack } = await opened(served.url, 'none', { promptsListChanged: true });
    assert.deepEqual(ack.params.notifications, {});
    const result = (await reader.nextMessage())?.message;
    assert.deepEqual(result, {
      jsonrpc: '2.0',
      id: 'none',
      result: { resultType: 'complete', _meta: { [MetaKey.SubscriptionId]: 'none' } },
    });
    assert.equal(await reader.nextMessage(), undefined);
  });

  test('a listen without a filter: 400 -32602', async () => {
    const { served } = await serve();
    const res = await postModern(served.url, 'nf', 'subscriptions/listen', {});
    assert.equal(res.status, 400);
    const body = await jsonBody(res);
    assert.equal(body.error.code, -32602);
    assert.equal(body.id, 'nf');
  });

  test('past the per-principal cap: 429, which onerror hears', async () => {
    const { served, errors } = await serve({ maxListenStreamsPerPrincipal: 1 });
    const first = await opened(served.url, 1, { toolsListChanged: true });
    const res = await listen(served.url, 2, { toolsListChanged: true });
    assert.equal(res.status, 429);
    const body = await jsonBody(res);
    assert.equal(body.id, 2);
    assert.equal(typeof body.error.code, 'number');
    assert.ok(errors.some((e) => /maximum of 1 listen streams/.test(e.message)));
    await first.reader.cancel();
  });

  test('anonymous callers are counted by address: one that takes its slots leaves the others theirs', async () => {
    const { served } = await serve({ maxListenStreamsPerPrincipal: 1 });
    const first = await opened(served.url, 1, { toolsListChanged: true });
    const refused = await listen(served.url, 2, { toolsListChanged: true });
    assert.equal(refused.status, 429);
    assert.match(
      (await jsonBody(refused)).error.message,
      /^Too Many Requests: the anonymous clients at (::ffff:)?127\.0\.0\.1 hold the maximum of 1 listen streams/,
    );
    // A second anonymous client, from another loopback address, gets its own.
    const { status } = await postFrom(
      '127.0.0.2',
      served.url,
      modernMessage(3, 'subscriptions/listen', { notifications: { toolsListChanged: true } }, {}),
      modernHeaders('subscriptions/listen'),
    );
    assert.equal(status, 200);
    await first.reader.cancel();
  });

  test('past the process cap: 503 with Retry-After, which onerror hears', async () => {
    const { served, errors } = await serve({ maxListenStreams: 1 });
    const first = await opened(served.url, 1, { toolsListChanged: true });
    const res = await listen(served.url, 2, { toolsListChanged: true });
    assert.equal(res.status, 503);
    assert.ok(res.headers.get('retry-after'));
    assert.equal((await jsonBody(res)).id, 2);
    assert.ok(errors.some((e) => /maximum of 1 listen streams/.test(e.message)));
    await first.reader.cancel();
  });

  test('a stream the client closed is forgotten: the cap frees', async () => {
    const { served, handler } = await serve({ maxListenStreams: 1, maxListenStreamsPerPrincipal: 1 });
    const first = await opened(served.url, 1, { toolsListChanged: true });
    assert.equal(handler.listenStreamCount, 1);
    await first.reader.cancel();
    // The server hears the close asynchronously; a bounded number of tries.
    for (let attempt = 0; ; attempt++) {
      const res = await listen(served.url, 2, { toolsListChanged: true });
      if (res.status === 200) {
        const reader = new SSEReader(res);
        assert.equal(
          (await reader.nextMessage())?.message.method,
          'notifications/subscriptions/acknowledged',
        );
        assert.equal(handler.listenStreamCount, 1, 'the closed one no longer counts');
        await reader.cancel();
        return;
      }
      await res.text();
      assert.ok(attempt < 50, `the closed stream still counts: ${res.status}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  });
});
