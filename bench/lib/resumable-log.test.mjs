import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResumableLog } from './resumable-log.mjs';

// Each event of `data` 'x' costs 2 + 32 bytes.
const EVENT = 34;

/** Appends `n` events 'x' to `stream`. */
const fill = (log, stream, n) => {
  for (let i = 0; i < n; i++) log.append(stream, 'x');
};

describe('ResumableLog (ceiling.mjs --resumable)', () => {
  it('numbers each stream on its own, from 0, in the ids it answers', () => {
    const log = new ResumableLog();
    const a = log.open('a');
    const b = log.open('b');
    assert.deepEqual([log.append(a, 'x'), log.append(b, 'x'), log.append(a, 'x')], ['a_0', 'b_0', 'a_1']);
    assert.equal(log.bytes, 3 * EVENT);
  });

  it('purges the oldest events of all streams past its bound, and keeps numbering', () => {
    const log = new ResumableLog(10 * EVENT);
    const a = log.open('a');
    const b = log.open('b');
    for (let i = 0; i < 5000; i++) log.append(i % 3 === 0 ? a : b, 'x');
    assert.equal(log.bytes, 10 * EVENT);
    assert.equal(log.append(a, 'x'), `a_${Math.ceil(5000 / 3)}`);
    // What is left: the last 10 events appended, in their streams' arrays (compacted as they were purged).
    const kept =
      a.events.filter((e) => e !== undefined).length + b.events.filter((e) => e !== undefined).length;
    assert.equal(kept, 10);
    assert.ok(a.events.length < 1100 && b.events.length < 2100, 'the arrays are compacted');
  });

  it('forgets a closed stream once its events are purged, and only then', () => {
    const log = new ResumableLog(2 * EVENT);
    const a = log.open('a');
    fill(log, a, 1);
    log.close(a);
    assert.ok(log.has('a'), 'a closed stream with events is kept for a client that resumes');
    const b = log.open('b');
    fill(log, b, 2);
    assert.ok(!log.has('a'));
    assert.ok(log.has('b'), 'an open stream stays known with no events');
    fill(log, b, 2);
    assert.ok(log.has('b'));
    log.close(b);
    assert.ok(log.has('b'), 'its last two events are kept');
    const c = log.open('c');
    fill(log, c, 2);
    assert.ok(!log.has('b'));
    fill(log, c, 2);
    log.close(c);
    const d = log.open('d');
    fill(log, d, 2);
    log.close(d);
    log.close(log.open('e'));
    assert.ok(!log.has('c') && !log.has('e'), 'a stream closed with no event left goes at once');
    assert.ok(log.has('d'));
  });
});
