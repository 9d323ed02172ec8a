import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fc } from '../test-support/fuzz.js';
import { SmallMap } from './small-map.js';
import { without } from './without.js';

type Op = { op: 'set'; key: number; value: number } | { op: 'delete'; key: number };

const ops = fc.array(
  fc.oneof(
    fc.record({ op: fc.constant('set' as const), key: fc.integer({ min: -2, max: 4 }), value: fc.integer() }),
    fc.record({ op: fc.constant('delete' as const), key: fc.integer({ min: -2, max: 4 }) }),
  ),
  { maxLength: 40 },
);

test('SmallMap: any sequence of sets and deletes leaves what a Map would hold', () => {
  fc.assert(
    fc.property(fc.integer({ min: -2, max: 4 }), fc.integer(), ops, (key, value, steps: Op[]) => {
      const small = new SmallMap<number, number>(key, value);
      const map = new Map<number, number>([[key, value]]);
      for (const step of steps) {
        if (step.op === 'set') {
          assert.equal(small.set(step.key, step.value), small);
          map.set(step.key, step.value);
        } else assert.equal(small.delete(step.key), map.delete(step.key));
        assert.equal(small.size, map.size);
        for (let k = -2; k <= 4; k++) {
          assert.equal(small.has(k), map.has(k));
          assert.equal(small.get(k), map.get(k));
        }
        assert.deepEqual([...small.values()].sort(), [...map.values()].sort());
      }
    }),
  );
});

test("SmallMap: keys compare as Map's do (NaN is NaN, -0 is 0)", () => {
  const small = new SmallMap<number, string>(Number.NaN, 'nan');
  assert.equal(small.get(Number.NaN), 'nan');
  small.set(-0, 'zero');
  assert.equal(small.get(0), 'zero');
  assert.equal(small.size, 2);
});

test('without: a SmallMap whose last entry goes is dropped; with others left, it is kept', () => {
  const small = new SmallMap('a', 1).set('b', 2);
  assert.equal(without(small, 'a'), small);
  assert.equal(without(small, 'b'), undefined);
});

test('SmallMap: values is a copy, so entries can be deleted while going through it', () => {
  const small = new SmallMap('a', 1).set('b', 2).set('c', 3);
  const seen: number[] = [];
  for (const value of small.values()) {
    seen.push(value);
    small.delete(['a', 'b', 'c'][value - 1]);
  }
  assert.deepEqual(seen, [1, 2, 3]);
  assert.equal(small.size, 0);
  assert.deepEqual(small.values(), []);
});
