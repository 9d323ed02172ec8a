import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fromWeb } from '../../http/web-adapter.js';
import { parseMessage } from '../../jsonrpc/parse.js';
import type { MessageInfo } from '../../peer/connection.js';
import { ConnectionClosedError } from '../../peer/errors.js';
import { recordingReceiver } from '../../test-support/recording-receiver.js';
import { SSEServerConnection } from './sse-server-connection.js';

/** A connection over a web exchange whose writes are recorded, and its client's response. */
function connection(options?: { principal?: unknown; maxBufferedBytes?: number }) {
  const { exchange, response } = fromWeb(new Request('http://127.0.0.1/sse'));
  exchange.principal = options?.principal;
  const writes: string[] = [];
  const write = exchange.write.bind(exchange);
  exchange.write = (chunk: string) => {
    writes.push(chunk);
    return write(chunk);
  };
  const conn = new SSEServerConnection(exchange, 'sid', '/messages?sessionId=sid', {
    keepAliveMs: 0,
    maxBufferedBytes: options?.maxBufferedBytes,
  });
  return { conn, exchange, response, writes };
}

describe('SSEServerConnection', () => {
  test('start sends the endpoint event first; each message is one event in one write', async () => {
    const { conn, writes } = connection();
    const receiver = recordingReceiver();
    assert.deepEqual(writes, []);
    conn.start(receiver);
    assert.deepEqual(writes, ['event: endpoint\ndata: /messages?sessionId=sid\n\n']);
    await conn.send({ jsonrpc: '2.0', id: 1, result: { text: 'two\nlines' } });
    await conn.send({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: 'x' },
    });
    assert.deepEqual(writes.slice(1), [
      'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"text":"two\\nlines"}}\n\n',
      'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n\n',
    ]);
    assert.equal(conn.sessionId, 'sid');
  });

  test('receive delivers messages and batches with principal and POST headers; invalid input: error', () => {
    const { conn } = connection({ principal: 'alice' });
    const receiver = recordingReceiver();
    conn.start(receiver);
    const seen: unknown[] = [];
    const infos: (MessageInfo | undefined)[] = [];
    receiver.message = (m, info) => {
      seen.push(m);
      infos.push(info);
    };
    receiver.batch = (b, info) => {
      seen.push(b);
      infos.push(info);
    };
    const post = (value: string) =>
      fromWeb(new Request('http://127.0.0.1/messages?sessionId=sid', { headers: { 'x-custom': value } }))
        .exchange;
    conn.receive(parseMessage('{"jsonrpc":"2.0","id":1,"method":"ping"}'), post('one'));
    conn.receive(
      parseMessage('[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}]'),
      post('two'),
    );
    conn.receive(parseMessage('{oops'), post('three'));
    assert.deepEqual(seen, [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      [
        { jsonrpc: '2.0', method: 'a' },
        { jsonrpc: '2.0', method: 'b' },
      ],
    ]);
    assert.deepEqual(
      infos.map((info) => [info?.principal, info?.headers?.['x-custom']]),
      [
        ['alice', 'one'],
        ['alice', 'two'],
      ],
    );
    assert.equal(receiver.errors.length, 1);
    assert.equal((receiver.errors[0] as { code?: number }).code, -32700);
  });

  test('close ends the response, closes the receiver once, and later sends reject', async () => {
    const { conn, response } = connection();
    const receiver = recordingReceiver();
    conn.start(receiver);
    await conn.close();
    await conn.close();
    assert.deepEqual(receiver.closes, [undefined]);
    assert.equal(conn.isClosed, true);
    await assert.rejects(conn.send({ jsonrpc: '2.0', id: 1, result: {} }), ConnectionClosedError);
    // The client read everything and then the end of the stream.
    const text = await (await response).text();
    assert.equal(text, 'event: endpoint\ndata: /messages?sessionId=sid\n\n');
  });

  test('the client going away closes the connection (no resumption in this transport)', async () => {
    const { conn, response } = connection();
    const receiver = recordingReceiver();
    conn.start(receiver);
    await (await response).body!.cancel();
    await receiver.until(() => receiver.closes.length === 1);
    assert.equal(receiver.closes[0], undefined);
    assert.equal(conn.isClosed, true);
  });

  test('a client that stops reading is dropped past maxBufferedBytes and the session closes with why', async () => {
    const { conn } = connection({ maxBufferedBytes: 64 * 1024 });
    const receiver = recordingReceiver();
    conn.start(receiver);
    const big = {
      jsonrpc: '2.0' as const,
      method: 'notifications/message',
      params: { data: 'x'.repeat(8192) },
    };
    let rejected: unknown;
    for (let i = 0; i < 100 && rejected === undefined; i++) {
      await conn.send(big).catch((err) => {
        rejected = err;
      });
    }
    assert.ok(rejected instanceof ConnectionClosedError, String(rejected));
    assert.equal(receiver.closes.length, 1);
    assert.match(String(receiver.closes[0]?.message), /stopped reading.*cannot resume/);
  });

  test('a connection whose response ended before start reports closed at start', () => {
    const { conn, exchange } = connection();
    exchange.end();
    const receiver = recordingReceiver();
    conn.start(receiver);
    assert.deepEqual(receiver.closes, [undefined]);
  });
});
