import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readMessageEnds, tooLong } from './message-ends.js';

const PAD = 'x'.repeat(50);

test('the id is read from the start, where mcpwire and most clients write it', () => {
  const text = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"text":"${PAD}`;
  assert.deepEqual(readMessageEnds(text, ''), { id: 7, answer: false });
});

test("the id is read from the end, where the official SDKs' answers write it", () => {
  const tail = `${PAD}"}]},"jsonrpc":"2.0","id":"req-9"}\n`;
  assert.deepEqual(readMessageEnds('{"result":{"content":[{"type":"text","text":"', tail), {
    id: 'req-9',
    answer: true,
  });
});

test('an escaped key is the key it spells; an id nested in a member or inside a string is not the id', () => {
  assert.equal(readMessageEnds('{"\\u0069d":3,"method":"m"', '').id, 3);
  const text = '{"jsonrpc":"2.0","method":"m","params":{"id":1,"s":"a\\",\\"id\\":9}"}}';
  assert.deepEqual(readMessageEnds(text, text), { id: null, answer: false });
});

test('ids JSON-RPC does not allow, and ids cut off, are not read', () => {
  for (const head of ['{"id":null,', '{"id":1.5,', '{"id":9007199254740993,', '{"id":{"a":1},', '{"id":12'])
    assert.equal(readMessageEnds(head, '').id, null, head);
  for (const tail of ['"id":12}', '12}', '\\"id\\":12}"}'])
    assert.equal(readMessageEnds('', tail).id, null, tail);
});

test('a message with a method is no answer, though it carries "result" or "error" too', () => {
  assert.equal(readMessageEnds('{"id":1,"result":{},"method":"m","params":{"a":"', '').answer, false);
  assert.equal(readMessageEnds('{"id":1,"error":{"code":1,"message":"', '').answer, true);
});

test('tooLong: a request is answered with its id; an answer fails the request it answers', () => {
  const error = {
    code: -32600,
    message: 'Invalid request: message of 9000 bytes exceeds the limit of 4096 bytes',
  };
  assert.deepEqual(tooLong('{"jsonrpc":"2.0","id":4,"method":"m","params":{"', '', 9000, 4096), {
    kind: 'invalid',
    id: 4,
    error,
  });
  assert.deepEqual(tooLong('{"result":{"a":"', '"},"jsonrpc":"2.0","id":4}', 9000, 4096), {
    kind: 'invalid',
    id: 4,
    error,
    invalidAnswer: 'it is 9000 bytes long, over the limit of 4096 bytes',
  });
  assert.deepEqual(tooLong('[{"jsonrpc":"2.0","id":4', '', 9000, 4096), { kind: 'invalid', id: null, error });
});
