// Fuzzing the reading of a cut message's ends (stdio's lines too long to keep): whatever the message and
// wherever its start and end are cut, what is read is the message's own top-level id or nothing, and an
// answer only where the message carries a result or an error; nothing ever throws.
// Runs and seed: src/test-support/fuzz.ts (MCPWIRE_FUZZ_RUNS, MCPWIRE_FUZZ_SEED).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fc, fuzzRuns } from '../test-support/fuzz.js';
import { readMessageEnds } from './message-ends.js';
import { isId } from './parse.js';

/** Strings made of JSON's own structure, to tempt a reader that loses track of where a string ends. */
const tricky = fc
  .array(
    fc.constantFrom(
      '"',
      '\\',
      '\\"',
      '}',
      '{',
      '[',
      ']',
      ',',
      ':',
      '"id":',
      '1',
      'a',
      ' ',
      '\n',
      '\u2028',
      '😀',
    ),
    {
      maxLength: 12,
    },
  )
  .map((parts) => parts.join(''));
const id = fc.oneof(
  fc.integer(),
  fc.maxSafeInteger(),
  tricky,
  fc.constantFrom<unknown>(null, 1.5, 2 ** 53 + 2, true),
);
const value: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  tricky,
  fc.record({ id, s: tricky, inner: fc.jsonValue({ maxDepth: 2 }) }),
  fc.array(fc.record({ id, jsonrpc: fc.constant('2.0'), result: fc.jsonValue({ maxDepth: 1 }) }), {
    maxLength: 3,
  }),
);
const key = fc.oneof(
  fc.constantFrom('jsonrpc', 'id', 'method', 'params', 'result', 'error', '_meta'),
  tricky,
);
const message = fc
  .uniqueArray(fc.tuple(key, fc.oneof(value, id)), { selector: ([k]) => k, maxLength: 7 })
  .map((entries) => Object.fromEntries(entries));
const indent = fc.constantFrom<string | number | undefined>(undefined, 1, '\t');

test('what the ends say is the top-level id or nothing, and an answer only where there is a result or error', () => {
  fc.assert(
    fc.property(message, indent, fc.nat(), fc.nat(), (m, space, h, t) => {
      const text = JSON.stringify(m, null, space);
      const parsed = JSON.parse(text) as Record<string, unknown>;
      const head = text.slice(0, h % (text.length + 1));
      const tail = text.slice(text.length - (t % (text.length + 1)));
      const read = readMessageEnds(head, tail);
      const own = 'id' in parsed && isId(parsed.id) ? parsed.id : null;
      if (read.id !== null) assert.equal(read.id, own);
      if (read.answer) assert.ok('result' in parsed || 'error' in parsed);
      // Seen whole from either end, nothing is left unread.
      for (const [whole, other] of [
        [text, ''],
        ['', text],
      ]) {
        const all = readMessageEnds(whole, other);
        assert.equal(all.id, own);
        assert.equal(all.answer, ('result' in parsed || 'error' in parsed) && !('method' in parsed));
      }
    }),
    fuzzRuns(3000),
  );
});

test('any text at all: no throw, and an id only of a kind JSON-RPC allows', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 80 }), tricky, (a, b) => {
      for (const [head, tail] of [
        [a, b],
        [b, a],
        [`{"id":${a}`, `${b}}`],
      ]) {
        const read = readMessageEnds(head, tail);
        assert.ok(read.id === null || isId(read.id));
      }
    }),
    fuzzRuns(3000),
  );
});
