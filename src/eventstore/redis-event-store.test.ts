import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { eventStoreContract } from '../test-support/event-store-contract.js';
import { type RedisServer, startRedisServer } from '../test-support/redis-server.js';
import { EventsPurgedError, StreamClosedError, UnknownStreamError } from './errors.js';
import { createRedisClient } from './redis-client.js';
import { RedisEventStore, type RedisEventStoreOptions } from './redis-event-store.js';
import { StoreUnavailableError } from './store-unavailable-error.js';

// One redis-server for the contract suite and the tests that leave it running; the tests that stop Redis
// start their own.
const server = await startRedisServer();
const client = createRedisClient(server.url);
after(async () => {
  await client.quit();
  await server.stop();
});

eventStoreContract(
  'RedisEventStore',
  (limits) => new RedisEventStore({ redis: client, maxBytesPerStream: limits?.maxBytes }),
);

/** A store on the shared server whose keys, under a prefix of its own, no other test writes. */
function isolated(options: Omit<RedisEventStoreOptions, 'redis' | 'keyPrefix'> = {}) {
  const keyPrefix = `test-${randomUUID()}`;
  return { store: new RedisEventStore({ redis: client, keyPrefix, ...options }), keyPrefix };
}

/** Every key under `prefix`. */
async function keys(redis: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    found.push(...batch);
  } while (cursor !== '0');
  return found.sort();
}

/** The key of the Redis stream holding the events of stream `streamId` (the only key ending so). */
async function streamKey(prefix: string, streamId: string): Promise<string> {
  const found = (await keys(client, prefix)).filter((k) => k.endsWith(`}:${streamId}`));
  assert.equal(found.length, 1, `one Redis stream for "${streamId}"`);
  return found[0];
}

describe('RedisEventStore', () => {
  test('numbers 1,000 appends made without waiting by call order, in Redis entry ids too, never by clock', async () => {
    const { store, keyPrefix } = isolated();
    const s = randomUUID();
    await store.open(s, 'burst');
    const indices = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => store.append(s, 'burst', `e${i}`)),
    );
    assert.deepEqual(
      indices,
      Array.from({ length: 1000 }, (_, i) => i),
    );
    const entries = await client.xrange(await streamKey(keyPrefix, 'burst'), '-', '+');
    assert.deepEqual(
      entries.map(([id, fields]) => [id, fields[1]]),
      Array.from({ length: 1000 }, (_, i) => [`${i + 1}-0`, `e${i}`]),
    );
  });

  test('keeps no session id in any key name, and one session’s keys in one hash slot', async () => {
    const { store, keyPrefix } = isolated();
    const s = randomUUID();
    await store.open(s, 'a');
    await store.open(s, 'b{x}:y');
    await store.append(s, 'b{x}:y', 'e');
    const found = await keys(client, keyPrefix);
    assert.equal(found.length, 2, 'the session hash and one Redis stream (stream "a" holds no event)');
    for (const key of found) assert.ok(!key.includes(s), `${key} does not show the session id`);
    // Redis Cluster hashes only the first {…} of a key: the same one in every key of the session.
    const tags = found.map((k) => k.slice(keyPrefix.length + 1).match(/^\{[^{}]+\}/)?.[0]);
    assert.ok(tags[0] !== undefined && tags[0] === tags[1], `hash tags ${tags}`);
    assert.deepEqual((await store.after(s, 'b{x}:y', -1)).events, ['e']);
  });

  test('sets the TTL on every key of a session and refreshes it on each write', async () => {
    const { store, keyPrefix } = isolated({ ttlSeconds: 300 });
    const s = randomUUID();
    await store.open(s, 'a');
    await store.append(s, 'a', 'x');
    const found = await keys(client, keyPrefix);
    assert.equal(found.length, 2);
    for (const key of found) {
      const ttl = await client.ttl(key);
      assert.ok(ttl > 290 && ttl <= 300, `${key}: TTL ${ttl}`);
      await client.expire(key, 5);
    }
    await store.append(s, 'a', 'y');
    for (const key of found) assert.ok((await client.ttl(key)) > 290, `${key}: refreshed by append`);
    for (const key of found) await client.expire(key, 5);
    await store.open(s, 'a');
    for (const key of found) assert.ok((await client.ttl(key)) > 290, `${key}: refreshed by open`);
  });

  test('events that expired are purged, never replayed partially, and numbering goes on', async () => {
    const { store, keyPrefix } = isolated();
    const s = randomUUID();
    await store.open(s, 'a');
    await store.append(s, 'a', 'x');
    await store.append(s, 'a', 'y');
    // The events' key expires (the stream was idle for a TTL) while the session's record lives on.
    await client.del(await streamKey(keyPrefix, 'a'));
    await assert.rejects(async () => store.after(s, 'a', 0), { name: 'EventsPurgedError', firstHeld: 2 });
    assert.deepEqual((await store.after(s, 'a', 1)).events, []);
    assert.equal(await store.append(s, 'a', 'z'), 2);
    assert.deepEqual((await store.after(s, 'a', 1)).events, ['z']);
  });

  test('holds exactly maxEventsPerStream latest events: EventsPurgedError right at the boundary', async () => {
    const { store } = isolated({ maxEventsPerStream: 5 });
    const s = randomUUID();
    await store.open(s, 'a');
    for (let i = 0; i < 12; i++) await store.append(s, 'a', `e${i}`);
    assert.deepEqual((await store.after(s, 'a', 6)).events, ['e7', 'e8', 'e9', 'e10', 'e11']);
    await assert.rejects(
      async () => store.after(s, 'a', 5),
      (err) => err instanceof EventsPurgedError && err.afterIndex === 5 && err.firstHeld === 7,
    );
  });

  test('holds at most maxBytesPerStream bytes (UTF-8) of latest events; a larger event goes at once', async () => {
    const { store } = isolated({ maxBytesPerStream: 10 });
    const s = randomUUID();
    await store.open(s, 'a');
    for (const d of ['aaa', 'bbb', 'ccc', 'ddd']) await store.append(s, 'a', d);
    assert.deepEqual((await store.after(s, 'a', 0)).events, ['bbb', 'ccc', 'ddd'], '9 bytes held');
    await assert.rejects(async () => store.after(s, 'a', -1), { name: 'EventsPurgedError', firstHeld: 1 });
    await store.append(s, 'a', 'éé'); // 4 bytes: 13 > 10, so 'bbb' goes
    await assert.rejects(async () => store.after(s, 'a', 0), { name: 'EventsPurgedError', firstHeld: 2 });
    assert.deepEqual((await store.after(s, 'a', 1)).events, ['ccc', 'ddd', 'éé']);
    assert.equal(await store.append(s, 'a', 'x'.repeat(11)), 5);
    await assert.rejects(async () => store.after(s, 'a', 4), { name: 'EventsPurgedError', firstHeld: 6 });
    assert.deepEqual((await store.after(s, 'a', 5)).events, []);
    assert.equal(await store.append(s, 'a', 'next'), 6);
    assert.deepEqual((await store.after(s, 'a', 5)).events, ['next']);
  });

  test('sessionClosed leaves no key of the session behind, and no other session loses any', async () => {
    const { store, keyPrefix } = isolated();
    const [gone, kept] = [randomUUID(), randomUUID()];
    for (const s of [gone, kept]) {
      for (const id of ['get', 'post-1', 'post-2', 'empty']) await store.open(s, id);
      for (const id of ['get', 'post-1', 'post-2']) await store.append(s, id, `${id}-event`);
      await store.streamClosed(s, 'post-1');
    }
    const before = await keys(client, keyPrefix);
    assert.equal(before.length, 8, 'per session: its hash and three Redis streams');
    await store.sessionClosed(gone);
    const left = await keys(client, keyPrefix);
    assert.equal(left.length, 4);
    await store.sessionClosed(kept);
    assert.deepEqual(await keys(client, keyPrefix), []);
  });

  test('a closed stream that holds no event is forgotten at once', async () => {
    const { store, keyPrefix } = isolated();
    const s = randomUUID();
    await store.open(s, 'a');
    await store.streamClosed(s, 'a');
    assert.deepEqual(await keys(client, keyPrefix), []);
    await assert.rejects(async () => store.after(s, 'a', -1), UnknownStreamError);
  });

  test('two stores on two connections share streams, as two processes do', async () => {
    const other = createRedisClient(server.url);
    try {
      const keyPrefix = `test-${randomUUID()}`;
      const a = new RedisEventStore({ redis: client, keyPrefix });
      const b = new RedisEventStore({ redis: other, keyPrefix });
      const s = randomUUID();
      await a.open(s, 'post');
      await a.append(s, 'post', 'progress');
      assert.deepEqual(await b.after(s, 'post', -1), { events: ['progress'], closed: false });
      assert.equal(await b.append(s, 'post', 'result'), 1);
      await a.streamClosed(s, 'post');
      assert.deepEqual(await b.after(s, 'post', 0), { events: ['result'], closed: true });
      await assert.rejects(async () => b.append(s, 'post', 'late'), StreamClosedError);
      await b.sessionClosed(s);
      await assert.rejects(async () => a.after(s, 'post', -1), UnknownStreamError);
    } finally {
      await other.quit();
    }
  });

  test('refuses caps and TTLs that are not positive integers', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => new RedisEventStore({ redis: client, maxEventsPerStream: bad }), RangeError);
      assert.throws(() => new RedisEventStore({ redis: client, maxBytesPerStream: bad }), RangeError);
      assert.throws(() => new RedisEventStore({ redis: client, ttlSeconds: bad }), RangeError);
    }
  });
});

describe('RedisEventStore when Redis goes down', () => {
  let own: RedisServer;
  let store: RedisEventStore;
  before(async () => {
    own = await startRedisServer();
    store = new RedisEventStore({ redis: own.url });
  });
  after(async () => {
    await store.close();
    await own.stop();
  });

  /** Asserts that `run` rejects with StoreUnavailableError within a second. */
  async function failsPromptly(run: () => Promise<unknown>) {
    const started = Date.now();
    await assert.rejects(run, (err) => {
      assert.ok(err instanceof StoreUnavailableError, String(err));
      assert.match(err.message, /event store is unavailable: .*Redis/);
      return true;
    });
    assert.ok(Date.now() - started < 1000, `rejected after ${Date.now() - started} ms`);
  }

  test('works on a URL it connects to itself from the first call, in call order while it connects', async () => {
    const fresh = new RedisEventStore({ redis: own.url });
    try {
      const s = randomUUID();
      const opened = fresh.open(s, 'a');
      const indices = Array.from({ length: 200 }, (_, i) => fresh.append(s, 'a', `e${i}`));
      await opened;
      assert.deepEqual(
        await Promise.all(indices),
        Array.from({ length: 200 }, (_, i) => i),
      );
    } finally {
      await fresh.close();
    }
  });

  test('Redis stalled: a call fails once the client’s command timeout passes', async () => {
    const timely = createRedisClient(own.url, { commandTimeoutMs: 200 });
    const control = new Redis(own.url);
    try {
      const stalled = new RedisEventStore({ redis: timely });
      const s = randomUUID();
      await stalled.open(s, 'a');
      await control.call('CLIENT', 'PAUSE', '5000', 'WRITE');
      const started = Date.now();
      await assert.rejects(
        async () => stalled.append(s, 'a', 'x'),
        (err) => err instanceof StoreUnavailableError && /did not answer in time/.test(err.message),
      );
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= 150 && elapsed < 1000, `failed after ${elapsed} ms`);
    } finally {
      await control.call('CLIENT', 'UNPAUSE');
      control.disconnect();
      timely.disconnect();
    }
  });

  test('Redis killed: calls in flight and later calls reject promptly with StoreUnavailableError', async () => {
    const s = randomUUID();
    await store.open(s, 'a');
    // Redis holds back writes, so these appends are sent and unanswered when it is killed.
    const pauser = new Redis(own.url);
    try {
      await pauser.call('CLIENT', 'PAUSE', '10000', 'WRITE');
    } finally {
      pauser.disconnect();
    }
    const inFlight = Promise.allSettled(Array.from({ length: 100 }, (_, i) => store.append(s, 'a', `e${i}`)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await own.stop();
    for (const r of await inFlight) {
      assert.ok(r.status === 'rejected' && r.reason instanceof StoreUnavailableError, String(r));
    }
    assert.ok(Date.now() - started < 1000, `calls in flight settled after ${Date.now() - started} ms`);
    await failsPromptly(() => store.open(s, 'b'));
    await failsPromptly(() => store.append(s, 'a', 'late'));
    await failsPromptly(() => store.after(s, 'a', -1));
    await failsPromptly(() => store.streamClosed(s, 'a'));
    await failsPromptly(() => store.sessionClosed(s));
  });

  test('Redis restarted: the same store works again without being recreated', async () => {
    await own.restart();
    const s = randomUUID();
    const deadline = Date.now() + 5000;
    for (;;) {
      try {
        await store.open(s, 'a');
        break;
      } catch (err) {
        assert.ok(err instanceof StoreUnavailableError, String(err));
        assert.ok(Date.now() < deadline, 'the store reconnects within 5 s');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    const indices = await Promise.all([0, 1, 2].map((i) => store.append(s, 'a', `e${i}`)));
    assert.deepEqual(indices, [0, 1, 2]);
    assert.deepEqual((await store.after(s, 'a', -1)).events, ['e0', 'e1', 'e2']);
  });
});
