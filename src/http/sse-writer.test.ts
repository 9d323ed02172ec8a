import assert from 'node:assert/strict';
import { get } from 'node:http';
import { describe, test } from 'node:test';
import { listenLoopback, rawConnect, readAll } from '../test-support/http-loopback.js';
import { ManualClock } from '../test-support/manual-clock.js';
import type { HTTPExchange } from './exchange.js';
import { fromNode } from './node-adapter.js';
import { OVERFLOW_GRACE_MS, SSEWriter } from './sse-writer.js';
import { fromWeb } from './web-adapter.js';

/** A web exchange whose writes are recorded, and a way to read what its client received. */
function spiedExchange() {
  const { exchange, response } = fromWeb(new Request('http://localhost/mcp'));
  const writes: string[] = [];
  const write = exchange.write.bind(exchange);
  exchange.write = (chunk: string) => {
    writes.push(chunk);
    return write(chunk);
  };
  const received = async () => {
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of (await response).body!) text += decoder.decode(chunk as Uint8Array);
    return text;
  };
  return { exchange, response, writes, received };
}

/** Resolves with the writer the server made for the next request. */
function nextWriter(options: ConstructorParameters<typeof SSEWriter>[1]) {
  let resolveWriter!: (w: { writer: SSEWriter; exchange: HTTPExchange }) => void;
  const made = new Promise<{ writer: SSEWriter; exchange: HTTPExchange }>((resolve) => {
    resolveWriter = resolve;
  });
  const handler = (req: Parameters<typeof fromNode>[0], res: Parameters<typeof fromNode>[1]) => {
    const exchange = fromNode(req, res);
    resolveWriter({ writer: new SSEWriter(exchange, options), exchange });
  };
  return { made, handler };
}

describe('SSEWriter', () => {
  test('the client sees the 200 and the SSE headers before any event is written', async () => {
    const { made, handler } = nextWriter({ headers: { 'mcp-session-id': 's1' }, keepAliveMs: 0 });
    const server = await listenLoopback(handler);
    try {
      const res = await new Promise<import('node:http').IncomingMessage>((resolve) => {
        get({ port: server.port, host: '127.0.0.1', path: '/mcp' }, resolve);
      });
      // No event has been written yet: the head arrived on its own.
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'text/event-stream');
      assert.equal(res.headers['cache-control'], 'no-cache, no-transform');
      assert.equal(res.headers['x-accel-buffering'], 'no');
      assert.equal(res.headers['mcp-session-id'], 's1');
      const { writer } = await made;
      res.setEncoding('utf8');
      const first = new Promise<string>((resolve) => res.once('data', resolve));
      writer.event({ id: 's1_1', data: '{"jsonrpc":"2.0","method":"ping","id":1}' });
      assert.equal(await first, 'id: s1_1\ndata: {"jsonrpc":"2.0","method":"ping","id":1}\n\n');
      writer.close();
      assert.equal(writer.closed, true);
    } finally {
      await server.close();
    }
  });

  test('the head leaves with an event written in the same turn, or alone at the end of the turn', async () => {
    const flushes = (writeAtOnce: boolean) => {
      const { exchange, writes } = spiedExchange();
      let flushed = 0;
      const flush = exchange.flushHeaders.bind(exchange);
      exchange.flushHeaders = () => {
        flushed++;
        flush();
      };
      const writer = new SSEWriter(exchange, { keepAliveMs: 0 });
      if (writeAtOnce) writer.event({ data: 'x' });
      return { count: () => flushed, writes };
    };
    const together = flushes(true);
    const alone = flushes(false);
    await new Promise((r) => setImmediate(r));
    // One write carries the head and the event: no separate flush of the head.
    assert.equal(together.count(), 0);
    assert.deepEqual(together.writes, ['data: x\n\n']);
    // A quiet stream's head is not held back waiting for an event.
    assert.equal(alone.count(), 1);
  });

  test('a client that asked for Connection: close is told so, not promised keep-alive', async () => {
    const { made, handler } = nextWriter({ keepAliveMs: 0 });
    const server = await listenLoopback(handler);
    try {
      const res = await new Promise<import('node:http').IncomingMessage>((resolve) => {
        get(
          { port: server.port, host: '127.0.0.1', path: '/mcp', headers: { connection: 'close' } },
          resolve,
        );
      });
      assert.equal(res.headers.connection, 'close');
      (await made).writer.close();
      res.resume();
    } finally {
      await server.close();
    }
  });

  test('each event, however many fields and lines, is one write call', async () => {
    const { exchange, writes, received } = spiedExchange();
    const writer = new SSEWriter(exchange, { keepAliveMs: 0 });
    assert.equal(
      writer.event({ id: 's_1', event: 'message', data: 'line 1\r\nline 2\rline 3\nline 4' }),
      true,
    );
    assert.equal(writer.event({ data: '{}' }), true);
    assert.equal(writes.length, 2);
    writer.close();
    assert.equal(
      await received(),
      'id: s_1\nevent: message\ndata: line 1\ndata: line 2\ndata: line 3\ndata: line 4\n\ndata: {}\n\n',
    );
  });

  test('an id or event type that could inject a field throws and writes nothing', () => {
    const { exchange, writes } = spiedExchange();
    const writer = new SSEWriter(exchange, { keepAliveMs: 0 });
    assert.throws(() => writer.event({ id: '1\nevent: forged', data: 'x' }), TypeError);
    assert.throws(() => writer.event({ event: 'message\r', data: 'x' }), TypeError);
    assert.throws(() => writer.prime('1\0'), TypeError);
    assert.equal(writes.length, 0);
    assert.equal(writer.closed, false);
    writer.close();
  });

  test('prime writes an id with empty data; retry writes only the retry field', async () => {
    const { exchange, received } = spiedExchange();
    const writer = new SSEWriter(exchange, { keepAliveMs: 0 });
    writer.prime('s_0');
    writer.retry(2500);
    writer.close();
    assert.equal(await received(), 'id: s_0\ndata: \n\nretry: 2500\n\n');
  });

  test('a keep-alive comment every keepAliveMs (15 s by default), none after close', async () => {
    const clock = new ManualClock();
    const { exchange, writes, received } = spiedExchange();
    const writer = new SSEWriter(exchange, { clock });
    clock.advance(14_999);
    assert.deepEqual(writes, []);
    clock.advance(1);
    assert.deepEqual(writes, [': keepalive\n\n']);
    writer.event({ data: 'x' });
    clock.advance(30_000);
    assert.equal(writes.filter((w) => w === ': keepalive\n\n').length, 3);
    writer.close();
    assert.equal(clock.pending, 0);
    clock.advance(60_000);
    assert.equal(writes.length, 4);
    assert.equal(await received(), ': keepalive\n\ndata: x\n\n: keepalive\n\n: keepalive\n\n');
  });

  test('when the client goes away the keep-alive stops and writes report false', async () => {
    const clock = new ManualClock();
    const { exchange, response } = spiedExchange();
    const writer = new SSEWriter(exchange, { clock, keepAliveMs: 1000 });
    await (await response).body!.cancel();
    assert.equal(writer.closed, true);
    assert.equal(clock.pending, 0);
    assert.equal(writer.event({ data: 'x' }), false);
    assert.equal(writer.overflowed, false);
  });

  /** Writes 16 KiB per turn of the event loop, as a busy server would, until the writer stops taking events. */
  async function flood(writer: SSEWriter, data: string): Promise<number> {
    let written = 0;
    for (let turn = 0; turn < 10_000 && !writer.closed; turn++) {
      for (let i = 0; i < 16 && writer.event({ data }); i++) written++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return written;
  }

  test('a reader that stops reading: past maxBufferedBytes the response is ended, and what was written still arrives', async () => {
    const maxBufferedBytes = 64 * 1024;
    const clock = new ManualClock();
    const { made, handler } = nextWriter({ maxBufferedBytes, keepAliveMs: 0, clock });
    const server = await listenLoopback(handler);
    try {
      const socket = await rawConnect(server.port, 'GET /mcp HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await new Promise((resolve) => socket.once('data', resolve));
      socket.pause();
      const { writer } = await made;
      // The kernel buffers fill first, then the userland buffer grows until the bound trips.
      const data = 'x'.repeat(1024);
      const written = await flood(writer, data);
      assert.equal(writer.overflowed, true);
      assert.equal(writer.closed, true);
      assert.equal(writer.event({ data }), false);
      socket.resume();
      const text = await readAll(socket, (t) => t.endsWith('0\r\n\r\n'));
      // Ended, not dropped: every event written before the bound tripped arrives, whole, then the end.
      assert.equal(text.split(`data: ${data}\n\n`).length - 1, written);
      assert.equal(clock.pending, 0, 'the grace timer is cleared once the response drained');
    } finally {
      await server.close();
    }
  });

  test('a reader that never reads again is cut OVERFLOW_GRACE_MS after the overflow', async () => {
    const clock = new ManualClock();
    const { made, handler } = nextWriter({ maxBufferedBytes: 64 * 1024, keepAliveMs: 0, clock });
    const server = await listenLoopback(handler);
    try {
      const socket = await rawConnect(server.port, 'GET /mcp HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await new Promise((resolve) => socket.once('data', resolve));
      socket.pause();
      const { writer, exchange } = await made;
      let closes = 0;
      exchange.onClose(() => closes++);
      await flood(writer, 'x'.repeat(1024));
      assert.equal(writer.overflowed, true);
      clock.advance(OVERFLOW_GRACE_MS - 1);
      assert.equal(clock.pending, 1, 'the buffered bytes may still drain during the grace period');
      clock.advance(1);
      assert.equal(clock.pending, 0);
      socket.resume();
      const text = await readAll(socket);
      // Cut: the connection closed with the response unfinished, what was still buffered discarded.
      assert.ok(!text.endsWith('0\r\n\r\n'));
      assert.equal(closes, 1);
    } finally {
      await server.close();
    }
  });

  test('a reader that keeps up receives an event larger than maxBufferedBytes', async () => {
    const { made, handler } = nextWriter({ maxBufferedBytes: 1024, keepAliveMs: 0 });
    const server = await listenLoopback(handler);
    try {
      const socket = await rawConnect(server.port, 'GET /mcp HTTP/1.1\r\nHost: localhost\r\n\r\n');
      const received = readAll(socket, (text) => text.endsWith('0\r\n\r\n'));
      const { writer } = await made;
      const big = 'y'.repeat(256 * 1024);
      assert.equal(writer.event({ data: big }), true);
      writer.close();
      assert.equal(writer.overflowed, false);
      const text = await received;
      // The response finished normally, with the whole event.
      assert.ok(text.includes(`data: ${big}\n\n`));
    } finally {
      await server.close();
    }
  });
});
