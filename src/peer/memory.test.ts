import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { McpError } from '../jsonrpc/errors.js';
import type { JsonRpcMessage } from '../jsonrpc/types.js';
import { recordingReceiver as recorder } from '../test-support/recording-receiver.js';
import { createMemoryPair } from './memory.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const note = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'n', params: { n } });

describe('createMemoryPair', () => {
  test('delivers asynchronously, in order, as a copy of what a wire would carry', async () => {
    const [a, b] = createMemoryPair();
    const ra = recorder();
    const rb = recorder();
    a.start(ra);
    b.start(rb);
    const sent = { jsonrpc: '2.0', id: 1, method: 'm', params: { when: undefined, at: 1 } } as JsonRpcMessage;
    const sends = [a.send(sent), a.send(note(0)), a.send(note(1)), a.send(note(2))];
    assert.equal(rb.messages.length, 0, 'nothing delivered synchronously');
    await Promise.all(sends);
    await tick();
    assert.deepEqual(rb.messages, [
      { jsonrpc: '2.0', id: 1, method: 'm', params: { at: 1 } },
      note(0),
      note(1),
      note(2),
    ]);
    assert.notEqual(rb.messages[0], sent);
    await b.send({ jsonrpc: '2.0', id: 1, result: {} });
    await tick();
    assert.deepEqual(ra.messages, [{ jsonrpc: '2.0', id: 1, result: {} }]);
  });

  test('buffers messages until the peer starts', async () => {
    const [a, b] = createMemoryPair();
    a.start(recorder());
    await a.send(note(1));
    await a.send(note(2));
    await tick();
    const rb = recorder();
    b.start(rb);
    await a.send(note(3));
    await tick();
    assert.deepEqual(rb.messages, [note(1), note(2), note(3)]);
  });

  test('answers an invalid message on the wire and reports it to the receiver', async () => {
    const [a, b] = createMemoryPair();
    const ra = recorder();
    const rb = recorder();
    a.start(ra);
    b.start(rb);
    await a.send({ jsonrpc: '1.0', id: 7, method: 'x' } as unknown as JsonRpcMessage);
    await tick();
    assert.equal(rb.messages.length, 0);
    assert.equal(rb.errors.length, 1);
    assert.ok(rb.errors[0] instanceof McpError);
    assert.equal((rb.errors[0] as McpError).code, -32600);
    assert.equal(ra.messages.length, 1);
    const reply = ra.messages[0] as { id: unknown; error: { code: number } };
    assert.equal(reply.id, 7);
    assert.equal(reply.error.code, -32600);
  });

  test('a batch arrives as a batch', async () => {
    const [a, b] = createMemoryPair();
    const rb = recorder();
    a.start(recorder());
    b.start(rb);
    await a.send([note(1), note(2)] as unknown as JsonRpcMessage);
    await tick();
    assert.deepEqual(rb.batches, [[note(1), note(2)]]);
  });

  test('closing one end closes both, once each, after messages in flight', async () => {
    const [a, b] = createMemoryPair();
    const ra = recorder();
    const rb = recorder();
    a.start(ra);
    b.start(rb);
    await a.send(note(1));
    await a.close();
    assert.deepEqual(rb.messages, [note(1)]);
    assert.deepEqual(ra.closes, [undefined]);
    assert.deepEqual(rb.closes, [undefined]);
    await b.close();
    await a.close();
    await tick();
    assert.equal(ra.closes.length, 1);
    assert.equal(rb.closes.length, 1);
    await assert.rejects(a.send(note(2)), /closed/);
    await assert.rejects(b.send(note(2)), /closed/);
  });

  test('an end that starts after the pair closed still hears what was sent, then closed', async () => {
    const [a, b] = createMemoryPair();
    a.start(recorder());
    await a.send(note(1));
    await a.close();
    const rb = recorder();
    b.start(rb);
    await tick();
    assert.deepEqual(rb.messages, [note(1)]);
    assert.deepEqual(rb.closes, [undefined]);
  });

  test('send rejects a message that cannot be serialized', async () => {
    const [a, b] = createMemoryPair();
    a.start(recorder());
    b.start(recorder());
    await assert.rejects(a.send({ jsonrpc: '2.0', method: 'n', params: { big: 1n } }), TypeError);
  });
});
