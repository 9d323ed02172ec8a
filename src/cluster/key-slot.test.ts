import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keySlot } from './key-slot.js';

test('the slot of a key is CRC16/XMODEM of it, or of its hash tag, modulo 16384 (as CLUSTER KEYSLOT says)', () => {
  // The cluster spec's check value (CRC16 of "123456789" is 0x31C3), then answers of redis-server 7.0's KEYSLOT.
  assert.equal(keySlot('123456789'), 0x31c3);
  assert.equal(keySlot('foo'), 12182);
  assert.equal(keySlot('mcpwire:node:abc'), 3817);
  assert.equal(keySlot('é'), 10180, 'of the UTF-8 bytes');
  // A hash tag: the part in the first {…}, when it is not empty.
  assert.equal(keySlot('user1000'), 3443);
  assert.equal(keySlot('{user1000}.following'), 3443);
  assert.equal(keySlot('a{user1000}.followers{x}'), 3443);
  assert.equal(keySlot('foo{}{bar}'), 8363, 'an empty first tag: the whole key');
  assert.equal(keySlot('foo{{bar}}zap'), 4015, 'the tag is "{bar"');
  assert.equal(keySlot('{bar'), 4015);
});
