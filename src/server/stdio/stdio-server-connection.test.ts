import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import type { JsonRpcMessage } from '../../jsonrpc/types.js';
import { recordingReceiver } from '../../test-support/recording-receiver.js';
import { stdioServerConnection } from './stdio-server-connection.js';

function setup() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const out: string[] = [];
  stdout.setEncoding('utf8').on('data', (s: string) => out.push(s));
  const conn = stdioServerConnection({ stdin, stdout });
  const r = recordingReceiver();
  conn.start(r);
  return { stdin, stdout, out, conn, r };
}

const note = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'n', params: { n } });

describe('stdioServerConnection', () => {
  test('reads messages from stdin and writes messages as lines to stdout', async () => {
    const { stdin, out, conn, r } = setup();
    stdin.write(JSON.stringify(note(1)) + '\n' + JSON.stringify(note(2)) + '\n');
    await r.until(() => r.messages.length === 2);
    assert.deepEqual(r.messages, [note(1), note(2)]);
    await conn.send({ jsonrpc: '2.0', id: 1, result: {} });
    await r.until(() => out.length > 0);
    assert.deepEqual(out, ['{"jsonrpc":"2.0","id":1,"result":{}}\n']);
  });

  test('answers invalid input on stdout with a JSON-RPC error line and reports it', async () => {
    const { stdin, out, r } = setup();
    stdin.write('nope\n');
    await r.until(() => out.length > 0);
    assert.equal(JSON.parse(out[0]).error.code, -32700);
    assert.equal(r.errors.length, 1);
  });

  test('ends when stdin ends: closed once, then send rejects', async () => {
    const { stdin, conn, r } = setup();
    stdin.end(JSON.stringify(note(1)));
    await r.until(() => r.closes.length > 0);
    assert.deepEqual(r.messages, [note(1)], 'a last line without newline still counts');
    assert.deepEqual(r.closes, [undefined]);
    await assert.rejects(conn.send(note(2)), /closed/);
    await conn.close();
    assert.equal(r.closes.length, 1);
  });

  test('close stops reading and leaves the streams open', async () => {
    const { stdin, stdout, conn, r } = setup();
    await conn.close();
    assert.deepEqual(r.closes, [undefined]);
    stdin.write(JSON.stringify(note(1)) + '\n');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(r.messages, []);
    assert.equal(stdin.destroyed, false);
    assert.equal(stdout.writableEnded, false);
    await assert.rejects(conn.send(note(2)), /closed/);
  });

  test('a stdin error ends the connection with that cause', async () => {
    const { stdin, r } = setup();
    stdin.destroy(new Error('boom'));
    await r.until(() => r.closes.length > 0);
    assert.match(String(r.closes[0]), /boom/);
  });
});
