import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fc } from '../test-support/fuzz.js';
import { jsonProblem } from './json-fidelity.js';

/**
 * What JSON keeps of plain data: undefined properties left out, -0 read back as 0. Each key is defined, not
 * assigned, as JSON.parse does: assigned, a key named `__proto__` would set the prototype instead.
 */
function kept(v: unknown): unknown {
  if (Object.is(v, -0)) return 0;
  if (Array.isArray(v)) return v.map(kept);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(v)) {
    if (item !== undefined)
      Object.defineProperty(out, key, {
        value: kept(item),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return out;
}

/** [1, <hole>, 3]: JSON.stringify writes the hole as null. */
function holed(): number[] {
  const array = new Array<number>(3);
  array[0] = 1;
  array[2] = 3;
  return array;
}

describe('jsonProblem', () => {
  test('finds nothing in what JSON carries as it is, including undefined properties', () => {
    for (const value of [
      {},
      { a: 1, b: 'x', c: [true, null, { d: -0.5 }], e: undefined },
      [],
      Number.MAX_VALUE,
      JSON.parse('{"a":1e308,"b":-1e-400}'),
    ]) {
      assert.equal(jsonProblem(value), undefined, JSON.stringify(value));
    }
  });

  test('names the first value JSON would change or refuse, and why', () => {
    const cases: Array<[unknown, string]> = [
      [JSON.parse('{"a":{"b":[0,1e400]}}'), '.a.b[1] is Infinity, not a finite number'],
      [{ a: -Infinity }, '.a is -Infinity, not a finite number'],
      [{ a: Number.NaN }, '.a is NaN, not a number JSON has'],
      [{ a: [1, undefined] }, '.a[1] is undefined, which JSON writes as null in an array'],
      [{ a: holed() }, '.a[1] is undefined'],
      [{ n: 2n ** 64n }, '.n is a BigInt (18446744073709551616n), which JSON has no form for'],
      [{ f: () => 0 }, '.f is a function, which JSON cannot carry'],
      [{ s: Symbol('x') }, '.s is a symbol, which JSON cannot carry'],
    ];
    for (const [value, expected] of cases) {
      const problem = jsonProblem(value);
      assert.ok(problem?.startsWith(expected), `expected ${expected}, got ${problem}`);
    }
  });

  test('refuses a value nested beyond 1000 levels instead of overflowing the stack', () => {
    const deep = JSON.parse(`${'['.repeat(50_000)}${']'.repeat(50_000)}`);
    assert.match(String(jsonProblem(deep)), /^(\[0\]){1000} is nested more than 1000 levels deep$/);
    const fine = JSON.parse(`${'['.repeat(1000)}${']'.repeat(1000)}`);
    assert.equal(jsonProblem(fine), undefined);
  });

  test('a key named __proto__ comes back from a JSON round trip as a key of its own', () => {
    const value = JSON.parse('{"__proto__":0,"a":{"__proto__":{"b":1}}}');
    assert.equal(jsonProblem(value), undefined);
    assert.deepStrictEqual(JSON.parse(JSON.stringify(value)), kept(value));
  });

  test('property: a value without a problem comes back from a JSON round trip as it was', () => {
    const value = fc.anything({ withBigInt: true, withSparseArray: true, maxDepth: 4 });
    fc.assert(
      fc.property(value, (v) => {
        if (jsonProblem(v) !== undefined || v === undefined) return;
        assert.deepStrictEqual(JSON.parse(JSON.stringify(v)), kept(v));
      }),
    );
  });
});
