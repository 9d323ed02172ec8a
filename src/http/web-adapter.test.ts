import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { until } from '../test-support/time-limit.js';
import { BodyTooLargeError, type HTTPExchange, REFUSED_BODY_DRAIN_BYTES } from './exchange.js';
import { fromWeb, WEB_STREAM_HIGH_WATER_MARK } from './web-adapter.js';

const encoder = new TextEncoder();

/** The body `readBody` gives, as a promise that rejects with the error it gives instead. */
const bodyOf = (exchange: HTTPExchange, limit: number) =>
  new Promise<string>((resolve, reject) => exchange.readBody(limit, resolve, reject));

/** A request whose body arrives in the given chunks, recording whether the adapter cancelled it. */
function streamedRequest(chunks: Uint8Array[]) {
  const state = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.pulled === chunks.length) controller.close();
      else controller.enqueue(chunks[state.pulled++]);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  const request = new Request('http://localhost/mcp', {
    method: 'POST',
    body,
    duplex: 'half',
  } as RequestInit);
  return { request, state };
}

describe('fromWeb: request', () => {
  test('method, target, path, query and headers; Host falls back to the URL authority', () => {
    const { exchange } = fromWeb(
      new Request('http://127.0.0.1:3000/messages?sessionId=a%20b', { headers: { 'X-Custom': 'yes' } }),
      { remoteAddress: '10.0.0.1' },
    );
    assert.equal(exchange.method, 'GET');
    assert.equal(exchange.target, '/messages?sessionId=a%20b');
    assert.equal(exchange.path, '/messages');
    assert.equal(exchange.query.get('sessionId'), 'a b');
    assert.equal(exchange.header('x-custom'), 'yes');
    assert.equal(exchange.header('x-missing'), undefined);
    assert.equal(exchange.header('host'), '127.0.0.1:3000');
    assert.equal(exchange.remoteAddress, '10.0.0.1');
    assert.equal(fromWeb(new Request('http://localhost')).exchange.target, '/');
  });

  test('headers: all of them by lower-case name, Host fallback; built once, frozen', () => {
    const { exchange } = fromWeb(
      new Request('http://127.0.0.1:3000/mcp', {
        headers: [
          ['X-Custom', 'yes'],
          ['X-Multi', 'a'],
          ['X-Multi', 'b'],
        ],
      }),
    );
    const headers = exchange.headers;
    assert.deepEqual({ ...headers }, { host: '127.0.0.1:3000', 'x-custom': 'yes', 'x-multi': 'a, b' });
    assert.equal(headers['x-multi'], exchange.header('x-multi'));
    assert.equal(headers.constructor, undefined, 'no inherited names');
    assert.equal(exchange.headers, headers);
    assert.ok(Object.isFrozen(headers));
  });

  test('a body exactly at the limit is read whole; an absent body is empty', async () => {
    const { exchange } = fromWeb(new Request('http://localhost/mcp', { method: 'POST', body: 'h€llo' }));
    assert.equal(await bodyOf(exchange, 7), 'h€llo');
    assert.equal(await bodyOf(fromWeb(new Request('http://localhost/mcp')).exchange, 7), '');
  });

  test('bytes are counted as read: a Content-Length that lies low does not let a big body through', async () => {
    const request = new Request('http://localhost/mcp', {
      method: 'POST',
      body: 'z'.repeat(1000),
      headers: { 'content-length': '5' },
    });
    await assert.rejects(bodyOf(fromWeb(request).exchange, 100), BodyTooLargeError);
  });

  test('a streamed body past the limit is refused; its rest is read and dropped, not buffered', async () => {
    const chunk = new Uint8Array(400);
    const { request, state } = streamedRequest([chunk, chunk, chunk, chunk, chunk]);
    await assert.rejects(bodyOf(fromWeb(request).exchange, 1000), (err: unknown) => {
      assert.ok(err instanceof BodyTooLargeError);
      assert.equal(err.status, 413);
      assert.equal(err.limitBytes, 1000);
      return true;
    });
    // Pulled on, so that a runtime reading the body from the connection leaves none of it unread (the body that
    // never ends, below, shows the refusal does not wait for the rest).
    await until(() => state.pulled === 5, 2000, 'the rest to be read');
    assert.equal(state.cancelled, false);
  });

  test('a refused body that never ends is cancelled once the drain bound is read', async () => {
    let pulled = 0;
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(1024 * 1024));
      },
      cancel() {
        cancelled = true;
      },
    });
    const request = new Request('http://localhost/mcp', {
      method: 'POST',
      body,
      duplex: 'half',
    } as RequestInit);
    await assert.rejects(bodyOf(fromWeb(request).exchange, 1000), BodyTooLargeError);
    await until(() => cancelled, 5000, 'the body to be cancelled');
    assert.ok(pulled * 1024 * 1024 > REFUSED_BODY_DRAIN_BYTES, `pulled ${pulled} MiB`);
    assert.ok(pulled < 64, `pulled ${pulled} MiB`);
  });

  test('a Content-Length above the limit is refused without waiting for the body', async () => {
    // A body that never arrives: the 413 must not wait for it.
    const body = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
    const request = new Request('http://localhost/mcp', {
      method: 'POST',
      body,
      duplex: 'half',
      headers: { 'content-length': '5000' },
    } as RequestInit);
    await assert.rejects(bodyOf(fromWeb(request).exchange, 1000), BodyTooLargeError);
  });

  test('a multi-byte character split across chunks decodes correctly', async () => {
    const euro = encoder.encode('€');
    const { request } = streamedRequest([euro.subarray(0, 1), euro.subarray(1)]);
    assert.equal(await bodyOf(fromWeb(request).exchange, 100), '€');
  });
});

describe('fromWeb: response', () => {
  test('end(body) settles a plain Response with the status, headers and whole body', async () => {
    const { exchange, response } = fromWeb(new Request('http://localhost/mcp', { method: 'POST' }));
    exchange.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'abc' });
    exchange.end('{"ok":true}');
    const r = await response;
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('mcp-session-id'), 'abc');
    assert.equal(await r.text(), '{"ok":true}');
    assert.equal(exchange.closed, true);
  });

  test('a response without a body may carry a bodiless status such as 204', async () => {
    const { exchange, response } = fromWeb(new Request('http://localhost/mcp', { method: 'DELETE' }));
    exchange.writeHead(204);
    exchange.end();
    assert.equal((await response).status, 204);
  });

  test('flushHeaders settles a streamed Response before anything is written', async () => {
    const { exchange, response } = fromWeb(new Request('http://localhost/mcp'));
    exchange.writeHead(200, { 'content-type': 'text/event-stream' });
    exchange.flushHeaders();
    const r = await response;
    assert.equal(r.headers.get('content-type'), 'text/event-stream');
    const reader = r.body!.getReader();
    exchange.write('data: 1\n\n');
    exchange.end('data: 2\n\n');
    const decoder = new TextDecoder();
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    assert.equal(text, 'data: 1\n\ndata: 2\n\n');
  });

  test('backpressure: write returns false past the high-water mark, onDrain fires once the reader reads', async () => {
    const { exchange, response } = fromWeb(new Request('http://localhost/mcp'));
    assert.equal(exchange.write('a'.repeat(100)), true);
    assert.equal(exchange.bytesBuffered, 100);
    assert.equal(exchange.write('b'.repeat(WEB_STREAM_HIGH_WATER_MARK)), false);
    assert.equal(exchange.bytesBuffered, 100 + WEB_STREAM_HIGH_WATER_MARK);
    let drained = 0;
    exchange.onDrain(() => drained++);
    const reader = (await response).body!.getReader();
    await reader.read();
    assert.equal(drained, 0, 'still above the mark after one chunk');
    await reader.read();
    assert.equal(drained, 1);
    assert.equal(exchange.bytesBuffered, 0);
  });

  test('flushed: undefined with nothing queued, else settles once the reader took every chunk', async () => {
    const { exchange, response } = fromWeb(new Request('http://localhost/mcp'));
    exchange.flushHeaders();
    assert.equal(exchange.flushed(), undefined);
    exchange.write('data: 1\n\n');
    exchange.write('data: 2\n\n');
    let settled = false;
    const flushed = exchange.flushed()!.then(() => {
      settled = true;
    });
    const reader = (await response).body!.getReader();
    await reader.read();
    await new Promise((r) => setImmediate(r));
    assert.equal(settled, false, 'one chunk is still queued');
    await reader.read();
    await flushed;
    assert.equal(exchange.bytesBuffered, 0);
    assert.equal(exchange.flushed(), undefined);
  });

  test('flushed settles when the exchange closes with chunks still queued', async () => {
    const { exchange } = fromWeb(new Request('http://localhost/mcp'));
    exchange.write('data: 1\n\n');
    const flushed = exchange.flushed();
    assert.ok(flushed);
    exchange.destroy();
    await flushed;
    assert.equal(exchange.flushed(), undefined);
  });

  test('a reader that cancels closes the exchange: onClose runs once, writes are ignored', async () => {
    const { exchange, response } = fromWeb(new Request('http://localhost/mcp'));
    let closes = 0;
    exchange.onClose(() => closes++);
    exchange.write('data: 1\n\n');
    await (await response).body!.cancel();
    assert.equal(exchange.closed, true);
    assert.equal(closes, 1);
    assert.equal(exchange.write('data: 2\n\n'), false);
  });

  test('an aborted request signal closes a streamed exchange', async () => {
    const abort = new AbortController();
    const { exchange } = fromWeb(new Request('http://localhost/mcp', { signal: abort.signal }));
    let closes = 0;
    exchange.onClose(() => closes++);
    exchange.flushHeaders();
    abort.abort();
    assert.equal(exchange.closed, true);
    assert.equal(closes, 1);
  });

  test('destroy drops the stream: the reader gets an error, not a clean end', async () => {
    const { exchange, response } = fromWeb(new Request('http://localhost/mcp'));
    exchange.write('data: 1\n\n');
    exchange.destroy();
    assert.equal(exchange.closed, true);
    await assert.rejects((await response).body!.getReader().read());
  });
});
