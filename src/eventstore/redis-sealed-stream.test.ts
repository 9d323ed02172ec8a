// Sealed streams (redis-event-scripts.ts): a stream opened, written and closed in one turn — a POST answered at
// once — is stored as one string with its TTL instead of a Redis stream. Nothing a caller sees may differ: a
// property test runs random turns of calls, made without waiting as the transport makes them, against
// RedisEventStore and MemoryEventStore and compares every answer and every error; the tests below check what
// is stored and the edges (expiry, bounds, a stream that existed before).
// Runs and seed: src/test-support/fuzz.ts (MCPWIRE_FUZZ_RUNS, MCPWIRE_FUZZ_SEED).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { fc, fuzzRuns } from '../test-support/fuzz.js';
import { startRedisServer } from '../test-support/redis-server.js';
import { sessionHash } from '../util/session-hash.js';
import { EventsPurgedError, StreamClosedError, UnknownEventError } from './errors.js';
import type { EventStore } from './event-store.js';
import { MemoryEventStore } from './memory-event-store.js';
import { createRedisClient } from './redis-client.js';
import { RedisEventStore, type RedisEventStoreOptions } from './redis-event-store.js';

const server = await startRedisServer();
const client = createRedisClient(server.url);
after(async () => {
  await client.quit();
  await server.stop();
});

const isolated = (options: Omit<RedisEventStoreOptions, 'redis' | 'keyPrefix'> = {}) =>
  new RedisEventStore({ redis: client, keyPrefix: `test-${randomUUID()}`, ...options });

type Op =
  | { k: 'open'; s: number; id: string }
  | { k: 'close'; s: number; id: string }
  | { k: 'append'; s: number; id: string; data: string }
  | { k: 'after'; s: number; id: string; index: number }
  | { k: 'call'; s: number; id: string; events: string[] };

// Few sessions and stream ids, so that turns meet the same streams; data that looks like the scripts' op codes.
const session = fc.integer({ min: 0, max: 1 });
const streamId = fc.constantFrom('x', 'y', 'post.1');
const data = fc.oneof(
  fc.constantFrom('', 'o', 'a', 'c', '{"jsonrpc":"2.0"}'),
  fc.string({ unit: 'grapheme' }),
);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ k: fc.constantFrom('open' as const, 'close' as const), s: session, id: streamId }),
  fc.record({ k: fc.constant('append' as const), s: session, id: streamId, data }),
  fc.record({
    k: fc.constant('after' as const),
    s: session,
    id: streamId,
    index: fc.integer({ min: -1, max: 5 }),
  }),
  fc.record({
    k: fc.constant('call' as const),
    s: session,
    id: streamId,
    events: fc.array(data, { minLength: 0, maxLength: 3 }),
  }),
);
/** A turn: calls made one after the other without waiting; or a session closed, alone (its cleanup takes two steps). */
const turn = fc.oneof(
  { weight: 9, arbitrary: fc.array(op, { minLength: 1, maxLength: 5 }) },
  { weight: 1, arbitrary: session.map((s) => ({ closeSession: s })) },
);

/** What a call answered, or the error it failed with (its class and the indices it names). */
async function outcome(call: () => unknown): Promise<unknown> {
  try {
    return { ok: await call() };
  } catch (err) {
    const { name, afterIndex, firstHeld, nextIndex } = err as Record<string, unknown>;
    return { error: name, afterIndex, firstHeld, nextIndex };
  }
}

/** `open`, succeeded or failed: what it answers besides is each store's own (a `StreamAppender`, or nothing). */
const opening = (store: EventStore, s: string, id: string) =>
  Promise.resolve(store.open(s, id)).then(() => undefined);

/** Makes the calls of one turn on `store`, in order and without waiting, and answers their outcomes. */
function play(store: EventStore, sessions: string[], ops: Op[]): Promise<unknown[]> {
  const pending: Promise<unknown>[] = [];
  for (const o of ops) {
    const s = sessions[o.s];
    if (o.k === 'open') pending.push(outcome(() => opening(store, s, o.id)));
    else if (o.k === 'close') pending.push(outcome(() => store.streamClosed(s, o.id)));
    else if (o.k === 'append') pending.push(outcome(() => store.append(s, o.id, o.data)));
    else if (o.k === 'after') pending.push(outcome(() => store.after(s, o.id, o.index)));
    else {
      // A POST answered at once: open, priming event and answer, close.
      pending.push(outcome(() => opening(store, s, o.id)));
      for (const e of o.events) pending.push(outcome(() => store.append(s, o.id, e)));
      pending.push(outcome(() => store.streamClosed(s, o.id)));
    }
  }
  return Promise.all(pending);
}

describe('RedisEventStore: sealed streams', () => {
  test('answers every call as MemoryEventStore does, whatever the turns of calls (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(turn, { minLength: 1, maxLength: 25 }), async (turns) => {
        const redis = isolated();
        const memory = new MemoryEventStore();
        const sessions = [randomUUID(), randomUUID()];
        for (const [i, t] of turns.entries()) {
          if ('closeSession' in t) {
            await redis.sessionClosed(sessions[t.closeSession]);
            memory.sessionClosed(sessions[t.closeSession]);
            continue;
          }
          assert.deepEqual(await play(redis, sessions, t), await play(memory, sessions, t), `turn ${i}`);
        }
        for (const s of sessions) await redis.sessionClosed(s);
      }),
      fuzzRuns(150),
    );
  });

  test('a stream opened, written and closed in one turn is one string with the TTL; replays as a stream would', async () => {
    const store = isolated({ ttlSeconds: 300 });
    const s = randomUUID();
    const calls = [
      store.open(s, 'p'),
      store.append(s, 'p', ''),
      store.append(s, 'p', '{"id":1}'),
      store.streamClosed(s, 'p'),
    ];
    assert.deepEqual(await Promise.all(calls), [undefined, 0, 1, undefined]);
    const key = store.streamKeyOf(sessionHash(s), 'p');
    assert.equal(await client.type(key), 'string');
    const ttl = await client.ttl(key);
    assert.ok(ttl > 290 && ttl <= 300, `TTL ${ttl}`);
    assert.deepEqual(await store.after(s, 'p', -1), { events: ['', '{"id":1}'], closed: true });
    assert.deepEqual(await store.after(s, 'p', 0), { events: ['{"id":1}'], closed: true });
    assert.deepEqual(await store.after(s, 'p', 1), { events: [], closed: true });
    await assert.rejects(async () => store.after(s, 'p', 2), UnknownEventError);
    // Closed: appends are refused, opening and closing again change nothing.
    await assert.rejects(async () => store.append(s, 'p', 'late'), StreamClosedError);
    await Promise.all([store.open(s, 'p'), store.streamClosed(s, 'p')]);
    assert.deepEqual(await store.after(s, 'p', -1), { events: ['', '{"id":1}'], closed: true });
    await store.sessionClosed(s);
    assert.equal(await client.exists(key, store.sessionKeyOf(sessionHash(s))), 0);
  });

  test('a sealed stream whose events expired: purged, as a Redis stream whose key expired', async () => {
    const store = isolated();
    const s = randomUUID();
    await Promise.all([
      store.open(s, 'p'),
      store.append(s, 'p', 'a'),
      store.append(s, 'p', 'b'),
      store.streamClosed(s, 'p'),
    ]);
    await client.del(store.streamKeyOf(sessionHash(s), 'p'));
    await assert.rejects(async () => store.after(s, 'p', -1), { name: 'EventsPurgedError', firstHeld: 2 });
    await assert.rejects(async () => store.after(s, 'p', 0), EventsPurgedError);
    assert.deepEqual(await store.after(s, 'p', 1), { events: [], closed: true });
  });

  test('beyond the bounds, or on a stream opened before, the turn is written as a Redis stream', async () => {
    const store = isolated({ maxEventsPerStream: 2, maxBytesPerStream: 8 });
    const s = randomUUID();
    const h = sessionHash(s);
    // Three events where a stream holds two: the oldest is purged at once.
    await Promise.all([
      store.open(s, 'n'),
      ...['1', '2', '3'].map((e) => store.append(s, 'n', e)),
      store.streamClosed(s, 'n'),
    ]);
    assert.equal(await client.type(store.streamKeyOf(h, 'n')), 'stream');
    await assert.rejects(async () => store.after(s, 'n', -1), { name: 'EventsPurgedError', firstHeld: 1 });
    assert.deepEqual(await store.after(s, 'n', 0), { events: ['2', '3'], closed: true });
    // Nine bytes where a stream holds eight.
    await Promise.all([
      store.open(s, 'b'),
      store.append(s, 'b', 'aaaaa'),
      store.append(s, 'b', 'bbbb'),
      store.streamClosed(s, 'b'),
    ]);
    assert.equal(await client.type(store.streamKeyOf(h, 'b')), 'stream');
    assert.deepEqual(await store.after(s, 'b', 0), { events: ['bbbb'], closed: true });
    // Opened in an earlier turn: its numbering goes on.
    await store.open(s, 'o');
    await store.append(s, 'o', 'f');
    await Promise.all([store.open(s, 'o'), store.append(s, 'o', 's'), store.streamClosed(s, 'o')]);
    assert.equal(await client.type(store.streamKeyOf(h, 'o')), 'stream');
    assert.deepEqual(await store.after(s, 'o', -1), { events: ['f', 's'], closed: true });
    await store.sessionClosed(s);
  });
});
