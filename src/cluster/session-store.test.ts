import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { createRedisClient, whenRedisReady } from '../eventstore/redis-client.js';
import { StoreUnavailableError } from '../eventstore/store-unavailable-error.js';
import { startRedisServer } from '../test-support/redis-server.js';
import { parseClusterMessage } from './cluster-messages.js';
import { SessionStore, sessionHash } from './session-store.js';

const redis = await startRedisServer();
const client = createRedisClient(redis.url);
const listener = createRedisClient(redis.url);
await Promise.all([whenRedisReady(client, 5000), whenRedisReady(listener, 5000)]);
after(async () => {
  await client.quit();
  await listener.quit();
  await redis.stop();
});

const session = {
  protocolVersion: '2025-11-25',
  clientInfo: { name: 'c', version: '1' },
  clientCapabilities: { sampling: {} },
  principal: 'alice',
  streamPrefix: 'abc.',
};

/** A store under a prefix of its own, and what its bus carries. */
async function isolated() {
  const prefix = `test-${randomUUID()}`;
  const store = new SessionStore(client, prefix, `${prefix}:bus`);
  const heard: unknown[] = [];
  await listener.subscribe(store.bus);
  listener.on('message', (channel, text) => {
    if (channel === store.bus) heard.push(parseClusterMessage(text));
  });
  return { store, heard };
}

describe('SessionStore', () => {
  test('a record reads back as written, under a key that does not show the session id', async () => {
    const { store } = await isolated();
    const id = randomUUID();
    const h = sessionHash(id);
    await store.create(h, session, 60_000, 1000);
    const record = await store.load(h);
    assert.deepEqual(
      { ...record, holders: [...record!.holders] },
      {
        ...session,
        state: { n: 0, logLevel: undefined, subscriptions: [] },
        holders: [],
      },
    );
    assert.ok(!store.key(h).includes(id));
    assert.equal(await store.load(sessionHash(randomUUID())), undefined, 'no record: undefined');
  });

  test('a principal that is not a string equals nothing once loaded', async () => {
    const { store } = await isolated();
    const h = sessionHash(randomUUID());
    const principal = { user: 'alice' };
    await store.create(h, { ...session, principal }, 60_000, 0);
    const loaded = (await store.load(h))!.principal;
    assert.notEqual(loaded, undefined);
    assert.notEqual(loaded, principal);
  });

  test('each change is counted and publishes the whole resulting state, in the order Redis made them', async () => {
    const { store, heard } = await isolated();
    const h = sessionHash(randomUUID());
    await store.create(h, session, 60_000, 0);
    const results = await Promise.all([
      store.change(h, { op: 'subscribe', uri: 'a://1' }),
      store.change(h, { op: 'level', level: 'warning' }),
      store.change(h, { op: 'subscribe', uri: 'a://2' }),
      store.change(h, { op: 'unsubscribe', uri: 'a://1' }),
    ]);
    assert.deepEqual(
      results.map((m) => m?.n),
      [1, 2, 3, 4],
    );
    const last = results[3]!;
    assert.equal(last.ll, 'warning');
    assert.deepEqual(last.subs, ['a://2']);
    assert.deepEqual((await store.load(h))!.state, { n: 4, logLevel: 'warning', subscriptions: ['a://2'] });
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(heard, results, 'the bus carries each state, in order');
    // An empty list of subscriptions comes back as Lua encodes it: an empty object, read as none.
    const none = await store.change(h, { op: 'unsubscribe', uri: 'a://2' });
    assert.deepEqual(none!.subs, {});
  });

  test('touch, change and hold say when the record is gone; remove tells every process', async () => {
    const { store, heard } = await isolated();
    const h = sessionHash(randomUUID());
    await store.create(h, session, 60_000, 0);
    assert.equal(await store.touch(h, 60_000, 5), true);
    assert.equal(await store.hold(h, 'abc.0', 'node1'), true);
    assert.deepEqual([...(await store.load(h))!.holders], [['abc.0', 'node1']]);
    await store.remove(h);
    assert.equal(await store.touch(h, 60_000, 6), false);
    assert.equal(await store.change(h, { op: 'level', level: 'debug' }), undefined);
    assert.equal(await store.hold(h, 'abc.0', 'node2'), false);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(heard, [
      { k: 'hold', s: h, x: 'abc.0', by: 'node1' },
      { k: 'closed', s: h },
    ]);
  });

  test('a record expires after its TTL unless touched', async () => {
    const { store } = await isolated();
    const h = sessionHash(randomUUID());
    // Margins of 150 ms or more either side of each deadline.
    await store.create(h, session, 400, 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(await store.touch(h, 400, 1), true);
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.notEqual(await store.load(h), undefined, 'kept alive by the touch');
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.equal(await store.load(h), undefined);
  });

  test('Redis unreachable: every call rejects with StoreUnavailableError', async () => {
    const down = createRedisClient('redis://127.0.0.1:1', { commandTimeoutMs: 200 });
    const store = new SessionStore(down, 'x', 'x:bus');
    try {
      await assert.rejects(store.load('h'), StoreUnavailableError);
      await assert.rejects(store.touch('h', 1000, 0), StoreUnavailableError);
      await assert.rejects(store.create('h', session, 1000, 0), StoreUnavailableError);
    } finally {
      down.disconnect();
    }
  });
});
