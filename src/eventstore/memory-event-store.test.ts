import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventStoreContract } from '../test-support/event-store-contract.js';
import { fc, fuzzRuns } from '../test-support/fuzz.js';
import { EventsPurgedError, StreamClosedError, UnknownEventError, UnknownStreamError } from './errors.js';
import type { StreamAppender } from './event-store.js';
import {
  MEMORY_EVENT_OVERHEAD_BYTES as EVENT,
  MemoryEventStore,
  MEMORY_STREAM_OVERHEAD_BYTES as STREAM,
} from './memory-event-store.js';

eventStoreContract('MemoryEventStore', (limits) => new MemoryEventStore(limits));

const eventCost = (data: string) => 2 * data.length + EVENT;
const streamCost = (id: string) => 2 * id.length + STREAM;

/** The lowest index the store still holds for a stream (0 when nothing was purged). */
function firstHeld(store: MemoryEventStore, session: string, stream: string): number {
  try {
    store.after(session, stream, -1);
    return 0;
  } catch (err) {
    if (err instanceof EventsPurgedError) return err.firstHeld;
    throw err;
  }
}

describe('MemoryEventStore', () => {
  test('answers directly, never with a promise', () => {
    const store = new MemoryEventStore();
    const appender = store.open('s', 't');
    assert.ok(!(appender instanceof Promise));
    assert.equal(store.append('s', 't', 'x'), 0);
    assert.equal(appender.append('y'), 1);
    assert.deepEqual(store.after('s', 't', -1), { events: ['x', 'y'], closed: false });
    assert.throws(() => store.append('other', 't', 'x'), UnknownStreamError);
  });

  test('charges 2 bytes per UTF-16 unit plus a fixed overhead per event and per stream', () => {
    const store = new MemoryEventStore();
    assert.equal(store.bytes, 0);
    store.open('s', 'stream');
    assert.equal(store.bytes, streamCost('stream'));
    store.append('s', 'stream', 'é😀');
    store.append('s', 'stream', '');
    assert.equal(store.bytes, streamCost('stream') + 2 * 3 + 2 * EVENT);
    assert.equal(store.maxBytes, 10 * 1024 * 1024);
  });

  test('keeps bytes within maxBytes, purging the oldest events of all sessions first', () => {
    const data = (i: number) => `event-${i}`.padEnd(20, '.');
    // Room for both streams and exactly four events.
    const maxBytes = 2 * streamCost('t') + 4 * eventCost(data(0));
    const store = new MemoryEventStore({ maxBytes });
    store.open('a', 't');
    store.open('b', 't');
    for (let i = 0; i < 4; i++) store.append(i % 2 === 0 ? 'a' : 'b', 't', data(i));
    assert.equal(store.bytes, maxBytes);
    assert.equal(firstHeld(store, 'a', 't'), 0);
    store.append('b', 't', data(4));
    assert.equal(firstHeld(store, 'a', 't'), 1, 'the oldest event, in session a, went first');
    assert.equal(firstHeld(store, 'b', 't'), 0);
    store.append('b', 't', data(5));
    assert.equal(firstHeld(store, 'b', 't'), 1);
    assert.deepEqual(store.after('b', 't', 0).events, [data(3), data(4), data(5)]);
    assert.deepEqual(store.after('a', 't', 0).events, [data(2)]);
    assert.equal(store.bytes, maxBytes);
    for (let i = 6; i < 1000; i++) {
      store.append(i % 3 === 0 ? 'a' : 'b', 't', data(i));
      assert.ok(store.bytes <= maxBytes);
    }
    const held = ['a', 'b'].flatMap((s) => store.after(s, 't', firstHeld(store, s, 't') - 1).events);
    assert.deepEqual(held.sort(), [996, 997, 998, 999].map(data), 'the four newest events are the ones held');
  });

  test('purges an event larger than the whole bound at once, leaving the stream resumable after it', () => {
    const store = new MemoryEventStore({ maxBytes: 1000 });
    store.open('s', 't');
    store.append('s', 't', 'small');
    assert.equal(store.append('s', 't', 'x'.repeat(1000)), 1);
    assert.throws(() => store.after('s', 't', 0), EventsPurgedError);
    assert.deepEqual(store.after('s', 't', 1).events, []);
    assert.equal(store.append('s', 't', 'next'), 2);
    assert.deepEqual(store.after('s', 't', 1).events, ['next']);
  });

  test('forgets a closed stream once none of its events is held, and its session with it', () => {
    const store = new MemoryEventStore({
      maxBytes: streamCost('done') + streamCost('live') + 3 * eventCost('e'),
    });
    store.open('s', 'done');
    store.append('s', 'done', 'e');
    store.streamClosed('s', 'done');
    store.open('s', 'live');
    for (let i = 0; i < 3; i++) store.append('s', 'live', 'e');
    assert.equal(store.streamCount, 1, '"done" lost its only event, so it went');
    assert.throws(() => store.after('s', 'done', 0), UnknownStreamError);
    store.streamClosed('s', 'live');
    store.open('t', 'other');
    store.append('t', 'other', 'e');
    store.append('t', 'other', 'e');
    store.append('t', 'other', 'e');
    assert.equal(store.sessionCount, 1, 'session s lost its last stream');
    assert.throws(() => store.after('s', 'live', 2), UnknownStreamError);
  });

  test('goes back to 0 bytes when every session is closed, and its queue does not grow with closed sessions', () => {
    const store = new MemoryEventStore({ maxBytes: 64 * 1024 });
    for (let round = 0; round < 200; round++) {
      for (let s = 0; s < 10; s++) {
        const session = `${round}-${s}`;
        store.open(session, 'post');
        store.open(session, 'get');
        for (let i = 0; i < 20; i++)
          store.append(session, i % 4 === 0 ? 'get' : 'post', `{"n":${i}}`.repeat(s));
        store.streamClosed(session, 'post');
      }
      // Close all but the newest few sessions: the queue holds many entries of closed sessions.
      for (let s = 0; s < 8; s++) store.sessionClosed(`${round}-${s}`);
      assert.ok(store.bytes <= store.maxBytes);
    }
    const queue = (store as unknown as { queue: unknown[] }).queue;
    assert.ok(
      queue.length <= 2 * 400 * 20 + 64,
      `queue length ${queue.length} stays proportional to what is held`,
    );
    for (let round = 0; round < 200; round++) {
      store.sessionClosed(`${round}-8`);
      store.sessionClosed(`${round}-9`);
    }
    assert.equal(store.bytes, 0);
    assert.equal(store.sessionCount, 0);
    assert.equal(store.streamCount, 0);
    assert.equal((store as unknown as { queue: unknown[] }).queue.length, 0);
  });

  test('refuses a maxBytes that is not a positive number', () => {
    for (const maxBytes of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => new MemoryEventStore({ maxBytes }), RangeError);
    }
  });

  test('open answers the stream, which appends in the same numbering as append by ids', () => {
    const store = new MemoryEventStore();
    const appender = store.open('s', 'a');
    assert.equal(store.open('s', 'a'), appender, 'opening an open stream answers the same appender');
    assert.equal(appender.append('one'), 0);
    assert.equal(store.append('s', 'a', 'two'), 1);
    assert.equal(appender.append('three'), 2);
    assert.deepEqual(store.after('s', 'a', -1), { events: ['one', 'two', 'three'], closed: false });
    assert.equal(store.bytes, streamCost('a') + eventCost('one') + eventCost('two') + eventCost('three'));
    store.streamClosed('s', 'a');
    assert.throws(() => appender.append('late'), StreamClosedError);
    const other = store.open('s', 'b');
    store.sessionClosed('s');
    assert.throws(() => other.append('gone'), UnknownStreamError);
    assert.equal(store.bytes, 0);
  });

  test('behaves like a simple model under random interleavings of all operations', () => {
    type Op =
      | { op: 'open' | 'streamClosed'; s: number; t: number }
      | { op: 'append' | 'appendVia'; s: number; t: number; data: string }
      | { op: 'after'; s: number; t: number; k: number }
      | { op: 'sessionClosed'; s: number };
    const target = { s: fc.nat(1), t: fc.nat(1) };
    const op: fc.Arbitrary<Op> = fc.oneof(
      { arbitrary: fc.record({ op: fc.constant('open' as const), ...target }), weight: 2 },
      {
        arbitrary: fc.record({
          op: fc.constant('append' as const),
          ...target,
          data: fc.string({ unit: 'binary', maxLength: 12 }),
        }),
        weight: 8,
      },
      {
        // Through the appender the stream's last open answered (see `appenders`).
        arbitrary: fc.record({
          op: fc.constant('appendVia' as const),
          ...target,
          data: fc.string({ unit: 'binary', maxLength: 12 }),
        }),
        weight: 6,
      },
      {
        arbitrary: fc.record({
          op: fc.constant('after' as const),
          ...target,
          k: fc.integer({ min: -2, max: 60 }),
        }),
        weight: 4,
      },
      { arbitrary: fc.record({ op: fc.constant('streamClosed' as const), ...target }), weight: 1 },
      { arbitrary: fc.record({ op: fc.constant('sessionClosed' as const), s: fc.nat(1) }), weight: 1 },
    );

    interface ModelStream {
      sessionId: string;
      id: string;
      data: string[];
      low: number;
      closed: boolean;
      /** Its session closed. */
      dead: boolean;
    }

    fc.assert(
      fc.property(
        fc.integer({ min: 200, max: 4000 }),
        fc.array(op, { maxLength: 600, size: 'max' }),
        (maxBytes, ops) => {
          const store = new MemoryEventStore({ maxBytes });
          const sessions = new Map<string, Map<string, ModelStream>>();
          // By "s/t": the appender the last open of that stream answered, and the model stream it belongs to (which
          // may since have closed, been forgotten, or died with its session).
          const appenders = new Map<string, StreamAppender>();
          const opened = new Map<string, ModelStream>();
          let fifo: ModelStream[] = [];
          let bytes = 0;
          let streams = 0;
          const find = (s: string, t: string) => sessions.get(s)?.get(t);
          const forget = (m: ModelStream) => {
            const session = sessions.get(m.sessionId)!;
            session.delete(m.id);
            if (session.size === 0) sessions.delete(m.sessionId);
            bytes -= streamCost(m.id);
            streams--;
          };
          const purge = () => {
            while (bytes > maxBytes && fifo.length > 0) {
              const m = fifo.shift()!;
              bytes -= eventCost(m.data[m.low++]);
              if (m.closed && m.low === m.data.length) forget(m);
            }
          };
          // What the model says an operation answers: a value, or the class of the error it throws.
          const model = (o: Op): unknown => {
            if (o.op === 'sessionClosed') {
              const session = sessions.get(`s${o.s}`);
              if (session === undefined) return undefined;
              sessions.delete(`s${o.s}`);
              for (const m of session.values()) {
                m.dead = true;
                for (const d of m.data.slice(m.low)) bytes -= eventCost(d);
                bytes -= streamCost(m.id);
                streams--;
              }
              const gone = new Set(session.values());
              fifo = fifo.filter((m) => !gone.has(m));
              return undefined;
            }
            const [s, t] = [`s${o.s}`, `t${o.t}`];
            const m = o.op === 'appendVia' ? opened.get(`${s}/${t}`) : find(s, t);
            switch (o.op) {
              case 'open': {
                if (m) {
                  opened.set(`${s}/${t}`, m);
                  return 'appender';
                }
                if (!sessions.has(s)) sessions.set(s, new Map());
                const created = { sessionId: s, id: t, data: [], low: 0, closed: false, dead: false };
                sessions.get(s)!.set(t, created);
                opened.set(`${s}/${t}`, created);
                bytes += streamCost(t);
                streams++;
                purge();
                return 'appender';
              }
              case 'append':
              case 'appendVia':
                if (!m) return o.op === 'append' ? UnknownStreamError : 'never opened';
                if (m.dead) return UnknownStreamError;
                if (m.closed) return StreamClosedError;
                m.data.push(o.data);
                fifo.push(m);
                bytes += eventCost(o.data);
                purge();
                return m.data.length - 1;
              case 'after':
                if (o.k < -1) return RangeError;
                if (!m) return UnknownStreamError;
                if (o.k >= m.data.length) return UnknownEventError;
                if (o.k + 1 < m.low) return EventsPurgedError;
                return { events: m.data.slice(o.k + 1), closed: m.closed };
              case 'streamClosed':
                if (!m) return undefined;
                m.closed = true;
                if (m.low === m.data.length) forget(m);
                return undefined;
            }
          };
          for (const o of ops) {
            const expected = model(o);
            let actual: unknown;
            try {
              if (o.op === 'sessionClosed') actual = store.sessionClosed(`s${o.s}`);
              else if (o.op === 'append') actual = store.append(`s${o.s}`, `t${o.t}`, o.data);
              else if (o.op === 'appendVia')
                actual = appenders.get(`s${o.s}/t${o.t}`)?.append(o.data) ?? 'never opened';
              else if (o.op === 'after') actual = store.after(`s${o.s}`, `t${o.t}`, o.k);
              else if (o.op === 'open') {
                const appender = store.open(`s${o.s}`, `t${o.t}`);
                appenders.set(`s${o.s}/t${o.t}`, appender);
                actual = typeof appender.append === 'function' ? 'appender' : appender;
              } else actual = store.streamClosed(`s${o.s}`, `t${o.t}`);
            } catch (err) {
              actual = (err as Error).constructor;
            }
            assert.deepEqual(actual, expected, JSON.stringify(o));
            assert.equal(store.bytes, bytes);
            assert.equal(store.streamCount, streams);
            assert.equal(store.sessionCount, sessions.size);
          }
        },
      ),
      fuzzRuns(100),
    );
  });
});
