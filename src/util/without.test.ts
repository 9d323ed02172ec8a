import assert from 'node:assert/strict';
import { test } from 'node:test';
import { without } from './without.js';

test('without: the last key going drops the map', () => {
  const map = new Map([['a', 1]]);
  assert.equal(without(map, 'a'), undefined);
});

test('without: other keys left, the same map without the key', () => {
  const map = new Map([
    ['a', 1],
    ['b', 2],
  ]);
  const left = without(map, 'a');
  assert.equal(left, map);
  assert.deepEqual([...map], [['b', 2]]);
});

test('without: a key the map does not hold leaves it as it is', () => {
  const map = new Map([['a', 1]]);
  assert.equal(without(map, 'b'), map);
  assert.deepEqual([...map], [['a', 1]]);
});
