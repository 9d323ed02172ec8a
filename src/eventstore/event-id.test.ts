import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fc, fuzzRuns } from '../test-support/fuzz.js';
import { formatEventId, isStreamId, parseEventId } from './event-id.js';

const streamId = fc.string({
  unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
  minLength: 1,
});

describe('event ids', () => {
  test('format as <streamId>_<index>', () => {
    assert.equal(formatEventId('k3J9', 0), 'k3J9_0');
    assert.equal(formatEventId('k3J9', 41), 'k3J9_41');
  });

  test('parse at the last underscore, so stream ids may contain underscores and digits', () => {
    assert.deepEqual(parseEventId('k3J9_41'), { streamId: 'k3J9', index: 41 });
    assert.deepEqual(parseEventId('a_b_7_0'), { streamId: 'a_b_7', index: 0 });
    assert.deepEqual(parseEventId('__1'), { streamId: '_', index: 1 });
    assert.deepEqual(parseEventId(`s_${Number.MAX_SAFE_INTEGER}`), {
      streamId: 's',
      index: Number.MAX_SAFE_INTEGER,
    });
  });

  test('turn anything that formatEventId cannot produce into undefined, without throwing', () => {
    const garbage: unknown[] = [
      undefined,
      null,
      7,
      ['s_1'],
      '',
      '_',
      '_1',
      's_',
      's',
      '17',
      's_-1',
      's_+1',
      's_01',
      's_1.0',
      's_1e3',
      's_ 1',
      's_1 ',
      's_١',
      `s_${Number.MAX_SAFE_INTEGER + 1}`,
      's_99999999999999999999',
      's 1_1',
      'é_1',
      's\n_1',
      's\u0000_1',
    ];
    for (const id of garbage) assert.equal(parseEventId(id), undefined, JSON.stringify(id));
  });

  test('round-trip: parse(format(s, i)) gives back s and i for every valid stream id and index', () => {
    fc.assert(
      fc.property(streamId, fc.maxSafeNat(), (s, i) => {
        assert.deepEqual(parseEventId(formatEventId(s, i)), { streamId: s, index: i });
      }),
      fuzzRuns(500),
    );
  });

  test('whatever it accepts, parse is the exact inverse of format', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.string({ unit: fc.constantFrom('a', '_', '0', '1', '9', '-') }),
        ),
        (id) => {
          const parsed = parseEventId(id);
          if (parsed !== undefined) {
            assert.equal(formatEventId(parsed.streamId, parsed.index), id);
            assert.ok(isStreamId(parsed.streamId));
          }
        },
      ),
      fuzzRuns(1000),
    );
  });

  test('stream ids are non-empty visible ASCII', () => {
    assert.equal(isStreamId('abc_DEF-123~!'), true);
    for (const bad of ['', 'a b', 'é', 'a\tb', '\u007f'])
      assert.equal(isStreamId(bad), false, JSON.stringify(bad));
  });
});
