// Fuzzing the stdio line reader with lines past its limit among lines within it, cut into chunks anywhere (inside a
// multi-byte character too): each line within the limit arrives whole and in order, each line past it is reported
// once with its whole length, and the id it is answered with is the one its first and last 4 KiB show.
// Runs and seed: src/test-support/fuzz.ts (MCPWIRE_FUZZ_RUNS, MCPWIRE_FUZZ_SEED).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readMessageEnds } from '../jsonrpc/message-ends.js';
import type { JsonRpcMessage, RequestId } from '../jsonrpc/types.js';
import { fc, fuzzRuns } from '../test-support/fuzz.js';
import { recordingReceiver } from '../test-support/recording-receiver.js';
import { messageLineReader } from './stdio-framing.js';

const LIMIT = 256;
const EDGE = 4096;

// A run repeated: fast-check keeps plain strings short, and most lines here must pass the limit.
const text = fc
  .tuple(
    fc.string({ unit: fc.constantFrom('a', 'é', '😀', '"', '\\', '}', '\n', ' '), minLength: 1 }),
    fc.nat(400),
  )
  .map(([run, times]) => run.repeat(times));
const id = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }));
/** A request or an answer, its id first or last, its long member anywhere between. */
const message = fc
  .tuple(id, fc.constantFrom('request', 'answer'), fc.boolean(), text)
  .map(([rid, kind, idFirst, pad]) => {
    const body = kind === 'request' ? { method: 'm', params: { pad } } : { result: { pad } };
    const m = idFirst ? { jsonrpc: '2.0', id: rid, ...body } : { ...body, jsonrpc: '2.0', id: rid };
    return JSON.stringify(m);
  });

test('lines within the limit arrive whole; each past it is reported once, with the id its ends show', () => {
  fc.assert(
    fc.property(
      fc.array(message, { minLength: 1, maxLength: 6 }),
      fc.array(fc.nat(), { maxLength: 40 }),
      (lines, cuts) => {
        const receiver = recordingReceiver();
        const failed: RequestId[] = [];
        receiver.invalidAnswer = (rid) => failed.push(rid) > 0;
        const answers: JsonRpcMessage[] = [];
        const reader = messageLineReader(receiver, (reply) => answers.push(reply), LIMIT);
        const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''));
        const at = [...new Set(cuts.map((c) => c % bytes.length))].sort((x, y) => x - y);
        let from = 0;
        for (const to of [...at, bytes.length]) {
          reader.push(bytes.subarray(from, to));
          from = to;
        }
        const short = lines.filter((l) => Buffer.byteLength(l) <= LIMIT);
        const long = lines.filter((l) => Buffer.byteLength(l) > LIMIT);
        assert.deepEqual(
          receiver.messages,
          short.map((l) => JSON.parse(l)),
        );
        assert.equal(receiver.errors.length, long.length);
        const expected = long.map((l) => {
          const b = Buffer.from(l);
          const ends = readMessageEnds(
            b.subarray(0, EDGE).toString(),
            b.subarray(Math.max(0, b.length - EDGE)).toString(),
          );
          return { ...ends, bytes: b.length };
        });
        assert.deepEqual(
          receiver.errors.map((e) => Number(/message of (\d+) bytes/.exec(e.message)?.[1])),
          expected.map((e) => e.bytes),
        );
        assert.deepEqual(
          failed,
          expected.filter((e) => e.answer && e.id !== null).map((e) => e.id),
        );
        assert.deepEqual(
          answers.map((a) => (a as { id: RequestId | null }).id),
          expected.filter((e) => !(e.answer && e.id !== null)).map((e) => e.id),
        );
        // Every line here names its id at one end or the other, within 4 KiB of it.
        for (const e of expected) assert.notEqual(e.id, null);
      },
    ),
    fuzzRuns(500),
  );
});
