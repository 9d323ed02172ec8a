// Fuzzing the SSE framing (issue 13): whatever id, event type, data and retry a caller writes, a spec parser
// (eventsource-parser, what clients use) reads back exactly those events, however the bytes are chunked; an id
// or event type that could start a field of its own is refused with a TypeError, and nothing is written.
// Runs and seed: src/test-support/fuzz.ts (MCPWIRE_FUZZ_RUNS, MCPWIRE_FUZZ_SEED).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createParser } from 'eventsource-parser';
import { fc, fuzzRuns } from '../test-support/fuzz.js';
import { formatSseEvent, type SSEEvent } from './sse-event.js';
import { SSEWriter } from './sse-writer.js';
import { fromWeb } from './web-adapter.js';

/** Pieces that matter to SSE framing, and text that is not ASCII (BOM, line separators, astral). */
const PIECES = [
  '\n',
  '\r',
  '\r\n',
  '\n\n',
  '\0',
  ':',
  ' ',
  '  ',
  'id:',
  'id: x',
  'data:',
  'event:',
  'retry: 1',
  '\uFEFF',
  '\u2028',
  '\u0085',
  'é',
  '😀',
  'message',
  'a',
];
const sseText = fc.oneof(
  { weight: 3, arbitrary: fc.array(fc.constantFrom(...PIECES), { maxLength: 8 }).map((p) => p.join('')) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 12 }) },
);
const retry = fc.oneof(
  { weight: 3, arbitrary: fc.nat() },
  { weight: 1, arbitrary: fc.constantFrom(-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY) },
);
const sseEvent: fc.Arbitrary<SSEEvent> = fc.record(
  { id: sseText, event: sseText, data: sseText, retry },
  { requiredKeys: ['data'] },
);

const UNSAFE = /[\r\n\0]/;

/** Whether formatting `e` must throw: a field that could inject another, or a retry that is not a delay. */
const refused = (e: SSEEvent) =>
  (e.id !== undefined && UNSAFE.test(e.id)) ||
  (e.event !== undefined && UNSAFE.test(e.event)) ||
  (e.retry !== undefined && !(Number.isInteger(e.retry) && e.retry >= 0));

/** What a client must see for `e`: its data with every line break a LF, an empty event type as none. */
const expected = (e: SSEEvent) => ({
  id: e.id,
  event: e.event === '' ? undefined : e.event,
  data: e.data.replace(/\r\n|\r|\n/g, '\n'),
});

interface Read {
  events: { id?: string; event?: string; data: string }[];
  retries: number[];
}

/** Parses `text` with eventsource-parser, fed in the chunks that `cuts` (positions) make. */
function parse(text: string, cuts: number[] = []): Read {
  const read: Read = { events: [], retries: [] };
  const parser = createParser({
    onEvent: (e) => read.events.push({ id: e.id, event: e.event, data: e.data }),
    onRetry: (ms) => read.retries.push(ms),
  });
  let from = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)) {
    parser.feed(text.slice(from, cut));
    from = cut;
  }
  parser.feed(text.slice(from));
  return read;
}

describe('formatSseEvent, fuzzed', () => {
  test('any event: read back exactly, in any chunking, or refused with a TypeError', () => {
    fc.assert(
      fc.property(sseEvent, fc.array(fc.nat(), { maxLength: 4 }), (e, cuts) => {
        let frame: string;
        try {
          frame = formatSseEvent(e);
        } catch (err) {
          assert.ok(err instanceof TypeError, String(err));
          assert.ok(refused(e), `refused a safe event: ${JSON.stringify(e)}`);
          return;
        }
        assert.ok(!refused(e), `wrote an unsafe event: ${JSON.stringify(frame)}`);
        const read = parse(frame, cuts);
        assert.deepEqual(read.events, [expected(e)], JSON.stringify(frame));
        assert.deepEqual(read.retries, e.retry === undefined ? [] : [e.retry]);
      }),
      fuzzRuns(3000),
    );
  });

  test('regression guards for injection: a data line cannot become an id, an event type or a new event', () => {
    const frame = formatSseEvent({ data: 'a\nid: evil\r\nevent: evil\rretry: 1\n\ndata: second' });
    assert.deepEqual(parse(frame), {
      events: [
        { id: undefined, event: undefined, data: 'a\nid: evil\nevent: evil\nretry: 1\n\ndata: second' },
      ],
      retries: [],
    });
    assert.throws(() => formatSseEvent({ id: 'x\nid: evil', data: '' }), TypeError);
    assert.throws(() => formatSseEvent({ event: 'x\r\ndata: evil', data: '' }), TypeError);
    assert.throws(() => formatSseEvent({ id: 'x\0', data: '' }), TypeError);
  });
});

type Op = { kind: 'event'; e: SSEEvent } | { kind: 'prime'; id: string } | { kind: 'retry'; ms: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: sseEvent.map((e) => ({ kind: 'event' as const, e })) },
  { weight: 1, arbitrary: sseText.map((id) => ({ kind: 'prime' as const, id })) },
  { weight: 1, arbitrary: retry.map((ms) => ({ kind: 'retry' as const, ms })) },
);

describe('SSEWriter, fuzzed', () => {
  test('a stream of writes reads back as the events written; a refused write throws and writes nothing', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 6 }), (ops, cuts) => {
        const { exchange } = fromWeb(new Request('http://localhost/mcp'));
        const writes: string[] = [];
        const write = exchange.write.bind(exchange);
        exchange.write = (chunk: string) => {
          writes.push(chunk);
          return write(chunk);
        };
        const writer = new SSEWriter(exchange, { keepAliveMs: 0 });
        const want: Read = { events: [], retries: [] };
        for (const o of ops) {
          const e: SSEEvent =
            o.kind === 'event'
              ? o.e
              : o.kind === 'prime'
                ? { id: o.id, data: '' }
                : { data: '', retry: o.ms };
          const count = writes.length;
          try {
            if (o.kind === 'event') writer.event(o.e);
            else if (o.kind === 'prime') writer.prime(o.id);
            else writer.retry(o.ms);
          } catch (err) {
            assert.ok(err instanceof TypeError && refused(e), String(err));
            assert.equal(writes.length, count, 'a refused write wrote nothing');
            continue;
          }
          assert.ok(!refused(e), `wrote an unsafe ${o.kind}: ${JSON.stringify(writes.at(-1))}`);
          assert.equal(writes.length, count + 1, 'one write per event');
          // A bare retry sets the delay and dispatches nothing.
          if (o.kind !== 'retry') want.events.push(expected(e));
          if (e.retry !== undefined) want.retries.push(e.retry);
        }
        writer.close();
        assert.deepEqual(parse(writes.join(''), cuts), want);
      }),
      fuzzRuns(1000),
    );
  });
});
