import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import type { McpError } from '../jsonrpc/errors.js';
import type { JsonRpcMessage, RequestId } from '../jsonrpc/types.js';
import { recordingReceiver } from '../test-support/recording-receiver.js';
import { LineWriter, messageLineReader } from './stdio-framing.js';

function setup(maxLineBytes?: number, asked?: (id: RequestId) => boolean) {
  const receiver = recordingReceiver();
  const failed: [RequestId, string][] = [];
  if (asked !== undefined)
    receiver.invalidAnswer = (id, problem) => asked(id) && failed.push([id, problem]) > 0;
  const answers: JsonRpcMessage[] = [];
  const reader = messageLineReader(receiver, (reply) => answers.push(reply), maxLineBytes);
  const push = (text: string | Buffer) => reader.push(typeof text === 'string' ? Buffer.from(text) : text);
  const { messages, batches, errors } = receiver;
  return { reader, push, messages, batches, errors, answers, failed };
}

const note = (n: number | string): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'n', params: { n } });
const line = (m: unknown) => JSON.stringify(m) + '\n';

describe('messageLineReader', () => {
  test('joins a line split across chunks, even inside a UTF-8 character', () => {
    const { push, messages } = setup();
    const bytes = Buffer.from(line(note('héllo €')));
    const cut = bytes.indexOf(0xe2) + 1; // inside the three bytes of '€'
    push(bytes.subarray(0, 5));
    push(bytes.subarray(5, cut));
    assert.equal(messages.length, 0);
    push(bytes.subarray(cut));
    assert.deepEqual(messages, [note('héllo €')]);
  });

  test('delivers several lines from one chunk, in order, keeping a trailing partial line', () => {
    const { push, messages } = setup();
    const text = line(note(1)) + line(note(2)) + line(note(3));
    push(text + '{"jsonrpc":"2.0",');
    assert.deepEqual(messages, [note(1), note(2), note(3)]);
    push('"method":"n","params":{"n":4}}\n');
    assert.deepEqual(messages, [note(1), note(2), note(3), note(4)]);
  });

  test('tolerates CRLF (also with CR and LF in different chunks) and skips empty lines', () => {
    const { push, messages, errors } = setup();
    push(JSON.stringify(note(1)) + '\r\n\r\n\n');
    push(JSON.stringify(note(2)) + '\r');
    push('\n' + JSON.stringify(note(3)));
    push('\r');
    push('\n');
    assert.deepEqual(messages, [note(1), note(2), note(3)]);
    assert.deepEqual(errors, []);
  });

  test('answers invalid JSON with -32700 and reports it, then reads on', () => {
    const { push, messages, errors, answers } = setup();
    push('{not json\n' + line(note(1)));
    assert.equal(answers.length, 1);
    const reply = answers[0] as { id: unknown; error: { code: number } };
    assert.equal(reply.id, null);
    assert.equal(reply.error.code, -32700);
    assert.equal(errors.length, 1);
    assert.equal((errors[0] as McpError).code, -32700);
    assert.deepEqual(messages, [note(1)]);
  });

  test('answers a wrong shape with -32600 and the id it could read', () => {
    const { push, answers, messages } = setup();
    push(line({ jsonrpc: '2.0', id: 'a', method: 5 }));
    assert.deepEqual(messages, []);
    assert.deepEqual(answers, [{ jsonrpc: '2.0', id: 'a', error: answers[0] && (answers[0] as any).error }]);
    assert.equal((answers[0] as any).error.code, -32600);
  });

  test('delivers a batch whole, to batch', () => {
    const { push, messages, batches } = setup();
    push(line([note(1), note(2)]));
    assert.deepEqual(batches, [[note(1), note(2)]]);
    assert.deepEqual(messages, []);
  });

  test('drops an oversize line, answers it with the id its start shows once it ends, and reads the next one', () => {
    const { push, messages, errors, answers } = setup(64);
    push('{"jsonrpc":"2.0","id":7,"method":"m","params":{"pad":"');
    push('x'.repeat(1000));
    assert.equal(errors.length, 0, 'nothing is said before the line ends');
    push('"}}\n' + line(note(1)));
    assert.equal(errors.length, 1, 'one report per oversize line');
    assert.match(errors[0].message, /^Invalid request: message of 1057 bytes exceeds the limit of 64 bytes$/);
    assert.deepEqual(answers, [
      { jsonrpc: '2.0', id: 7, error: { code: -32600, message: errors[0].message } },
    ]);
    assert.deepEqual(messages, [note(1)]);
  });

  test('an oversize line in one chunk, its id last, is answered with that id', () => {
    const { push, messages, errors, answers } = setup(64);
    push(
      `{"method":"m","params":{"pad":"${'y'.repeat(100)}"},"jsonrpc":"2.0","id":"abc"}\r\n${line(note(1))}`,
    );
    assert.equal(errors.length, 1);
    assert.equal((answers[0] as { id: unknown }).id, 'abc');
    assert.deepEqual(messages, [note(1)]);
  });

  test('an oversize answer to a request of the reader fails that request, and is not answered', () => {
    const { push, errors, answers, failed } = setup(64, (id) => id === 3);
    push(`{"result":{"text":"${'z'.repeat(5000)}"},"jsonrpc":"2.0","id":3}\n`);
    assert.deepEqual(failed, [[3, 'it is 5045 bytes long, over the limit of 64 bytes']]);
    assert.deepEqual(answers, []);
    assert.equal(errors.length, 1);
  });

  test('the ends are read across chunks of any size: an answer whose id comes last, sent 7 bytes at a time', () => {
    const { push, failed, answers } = setup(64, (id) => id === 'r-1');
    const text = `{"result":{"text":"${'é😀"\\'.repeat(3000)}"},"jsonrpc":"2.0","id":"r-1"}\n`;
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length; at += 7) push(bytes.subarray(at, at + 7));
    assert.deepEqual(failed, [['r-1', `it is ${bytes.length - 1} bytes long, over the limit of 64 bytes`]]);
    assert.deepEqual(answers, []);
  });

  test("an oversize line whose ends show no id is answered with id null; one cut by the input's end too", () => {
    const { reader, push, answers } = setup(64);
    push(`[${line(note('y'.repeat(100))).trim()}]\n`);
    push('{"jsonrpc":"2.0","method":"m","params":{"a":{"id":5}');
    push(`,"pad":"${'x'.repeat(100)}"}}`);
    reader.end();
    assert.deepEqual(
      answers.map((a) => (a as { id: unknown }).id),
      [null, null],
    );
  });

  test('a last line without a newline counts when the input ends', () => {
    const { reader, push, messages } = setup();
    push(JSON.stringify(note(1)));
    assert.deepEqual(messages, []);
    reader.end();
    assert.deepEqual(messages, [note(1)]);
  });
});

/** A writable whose 16-byte buffer one line overflows; it consumes only when told to. */
function slowSink() {
  const chunks: string[] = [];
  const pending: (() => void)[] = [];
  let writes = 0;
  const stream = new Writable({
    highWaterMark: 16,
    write(chunk, _enc, done) {
      writes++;
      chunks.push(String(chunk));
      pending.push(done);
    },
  });
  const consume = () => {
    for (const done of pending.splice(0)) done();
  };
  return { stream, chunks, consume, writes: () => writes };
}

describe('LineWriter', () => {
  test('writes each message as one line with one write, the lines of one turn together at its end', async () => {
    const chunks: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        chunks.push(String(chunk));
        done();
      },
    });
    const writer = new LineWriter(stream, () => {});
    await writer.write(note(1));
    await writer.write(note(2));
    assert.deepEqual(chunks, [], 'held (corked) until the turn ends');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(chunks, [line(note(1)), line(note(2))]);
    await writer.write(note(3));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(chunks, [line(note(1)), line(note(2)), line(note(3))], 'a later turn gathers its own');
  });

  test('under backpressure, waits for drain and keeps the order', async () => {
    const sink = slowSink();
    const writer = new LineWriter(sink.stream, () => {});
    const settled: number[] = [];
    const writes = [];
    for (let n = 0; n < 20; n++) writes.push(writer.write(note(n)).then(() => settled.push(n)));
    await new Promise((resolve) => setImmediate(resolve));
    // The first line fills the buffer; the rest wait in the writer, not in the stream.
    assert.equal(sink.stream.writableLength, line(note(0)).length);
    assert.deepEqual(settled, [0]);
    while (settled.length < 20) {
      sink.consume();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(writes);
    sink.consume();
    assert.deepEqual(settled, [...Array(20).keys()]);
    assert.deepEqual(
      sink.chunks,
      [...Array(20).keys()].map((n) => line(note(n))),
    );
  });

  test('close(true) ends the stream after the waiting lines', async () => {
    const sink = slowSink();
    const writer = new LineWriter(sink.stream, () => {});
    writer.write(note(1));
    writer.write(note(2));
    writer.close(true);
    const finished = once(sink.stream, 'finish');
    while (sink.chunks.length < 2) {
      sink.consume();
      await new Promise((resolve) => setImmediate(resolve));
    }
    sink.consume();
    await finished;
    assert.deepEqual(sink.chunks, [line(note(1)), line(note(2))]);
  });

  test('a stream error fails the waiting lines and later writes, and is reported', async () => {
    const sink = slowSink();
    const reported: Error[] = [];
    const writer = new LineWriter(sink.stream, (err) => reported.push(err));
    await writer.write(note(1));
    const waiting = writer.write(note(2));
    sink.stream.destroy(new Error('EPIPE'));
    await assert.rejects(waiting, /EPIPE/);
    await assert.rejects(writer.write(note(3)), /EPIPE/);
    assert.equal(reported.length, 1);
  });
});
