import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serialize } from './serialize.js';
import type { JsonRpcNotification, JsonRpcResponse } from './types.js';

test('serialize is JSON.stringify; a notification sent again as the same object is not serialized again', (t) => {
  const stringify = t.mock.method(JSON, 'stringify');
  const note: JsonRpcNotification = { jsonrpc: '2.0', method: 'notifications/message', params: { data: 1 } };
  const text = serialize(note);
  assert.equal(text, '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":1}}');
  for (let i = 0; i < 3; i++) assert.equal(serialize(note), text);
  assert.equal(stringify.mock.callCount(), 1);
  // An equal but distinct object, and responses (each unique), are serialized each time.
  assert.equal(serialize({ ...note }), text);
  const answer: JsonRpcResponse = { jsonrpc: '2.0', id: 1, result: {} };
  serialize(answer);
  serialize(answer);
  assert.equal(stringify.mock.callCount(), 4);
});
