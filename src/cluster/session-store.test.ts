import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { createRedisClient, whenRedisReady } from '../eventstore/redis-client.js';
import { RedisEventStore } from '../eventstore/redis-event-store.js';
import { StoreUnavailableError } from '../eventstore/store-unavailable-error.js';
import { redisForFile } from '../test-support/redis-server.js';
import { until } from '../test-support/time-limit.js';
import { parseClusterMessage } from './cluster-messages.js';
import { SessionStore, sessionHash } from './session-store.js';

const { redis, client } = await redisForFile();
const listener = createRedisClient(redis.url);
await whenRedisReady(listener, 5000);
// After redisForFile's own: the server may be gone, and disconnecting needs none.
after(() => listener.disconnect());

const session = {
  protocolVersion: '2025-11-25',
  clientInfo: { name: 'c', version: '1' },
  clientCapabilities: { sampling: {} },
  principal: 'alice',
  streamPrefix: 'abc.',
};

/** A store under a prefix of its own, serving process `node-a`, and what its bus carries. */
async function isolated() {
  const prefix = `test-${randomUUID()}`;
  const store = new SessionStore(client, prefix, `${prefix}:bus`, 'node-a');
  const heard: unknown[] = [];
  await listener.subscribe(store.bus);
  listener.on('message', (channel, text) => {
    if (channel === store.bus) heard.push(parseClusterMessage(text));
  });
  return { store, heard };
}

/**
 * What the bus carried for the commands awaited so far. Their messages reach `listener`, another connection, when
 * it reads them: a marker published after them arrives after them (a fixed 50 ms wait was too short on a busy
 * machine). The marker is no cluster message, so it is heard as undefined and left out.
 */
async function busSoFar(store: SessionStore, heard: unknown[]): Promise<unknown[]> {
  await client.publish(store.bus, 'marker');
  await until(() => heard.includes(undefined), 20_000, 'the marker on the bus');
  return heard.filter((m) => m !== undefined);
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

  test('a change names the other processes holding a replica: every one that created or loaded it before', async () => {
    const { store } = await isolated();
    const other = (node: string) => new SessionStore(client, store.keyPrefix, store.bus, node);
    const [b, c] = [other('node-b'), other('node-c')];
    const h = sessionHash(randomUUID());
    await store.create(h, session, 60_000, 0);
    const level = { op: 'level', level: 'info' } as const;
    assert.deepEqual(
      (await store.change(h, 'abc.', level, 60_000))!.holders,
      [],
      'only the creator holds it',
    );
    assert.deepEqual((await b.change(h, 'abc.', level, 60_000))!.holders, ['node-a']);
    // Redis runs a load and a change one after the other: a process that loaded first is named (A waits for it to
    // apply the change); one that loads after reads the change.
    const before = await c.load(h);
    const changed = await store.change(h, 'abc.', { op: 'level', level: 'debug' }, 60_000);
    assert.equal(before!.state.logLevel, 'info');
    assert.deepEqual(changed!.holders, ['node-c']);
    await store.unregister(h, 'node-c');
    const after = await b.load(h);
    assert.equal(after!.state.logLevel, 'debug');
    await c.load(h);
    assert.deepEqual([...(await store.change(h, 'abc.', level, 60_000))!.holders].sort(), [
      'node-b',
      'node-c',
    ]);
    // A replica dropped (or a process found gone) is no longer waited for.
    await b.unregister(h);
    await store.unregister(h, 'node-c');
    assert.deepEqual((await store.change(h, 'abc.', level, 60_000))!.holders, []);
    assert.deepEqual((await c.change(h, 'abc.', level, 60_000))!.holders, ['node-a']);
    const none = sessionHash(randomUUID());
    assert.equal(await store.load(none), undefined);
    assert.equal(await client.exists(store.key(none)), 0, 'loading no record makes none');
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
      store.change(h, 'abc.', { op: 'subscribe', uri: 'a://1' }, 60_000),
      store.change(h, 'abc.', { op: 'level', level: 'warning' }, 60_000),
      store.change(h, 'abc.', { op: 'subscribe', uri: 'a://2' }, 60_000),
      store.change(h, 'abc.', { op: 'unsubscribe', uri: 'a://1' }, 60_000),
    ]);
    const numbers = results.map((m) => m!.state.n);
    assert.deepEqual(
      numbers,
      [...numbers].sort((a, b) => a - b),
      'numbered in the order Redis made them',
    );
    assert.equal(new Set(numbers).size, 4);
    const last = results[3]!.state;
    assert.equal(last.ll, 'warning');
    assert.deepEqual(last.subs, ['a://2']);
    assert.deepEqual((await store.load(h))!.state, {
      n: last.n,
      logLevel: 'warning',
      subscriptions: ['a://2'],
    });
    assert.deepEqual(
      await busSoFar(store, heard),
      results.map((m) => m!.state),
      'the bus carries each state, in order',
    );
    // An empty list of subscriptions comes back as Lua encodes it: an empty object, read as none.
    const none = await store.change(h, 'abc.', { op: 'unsubscribe', uri: 'a://2' }, 60_000);
    assert.deepEqual(none!.state.subs, {});
  });

  test('a change made after Redis lost later changes is numbered past every number given before', async () => {
    const { store } = await isolated();
    const h = sessionHash(randomUUID());
    await store.create(h, session, 60_000, 0);
    const before = await store.change(h, 'abc.', { op: 'level', level: 'info' }, 60_000);
    const lost = await store.change(h, 'abc.', { op: 'level', level: 'debug' }, 60_000);
    // Redis restarts from a snapshot taken between the two: the record holds the first change's number.
    await client.hset(store.key(h), 'n', String(before!.state.n), 'll', 'info');
    // A restart takes longer than this.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const next = await store.change(h, 'abc.', { op: 'level', level: 'error' }, 60_000);
    assert.ok(next!.state.n > lost!.state.n, 'a process that applied the lost change applies the next one');
  });

  test('the subscriber index names the sessions a URI update must reach, and notify records it for them', async () => {
    const { store } = await isolated();
    const events = new RedisEventStore({ redis: client, keyPrefix: `${store.keyPrefix}:events` });
    const [h, other, gone] = [randomUUID(), randomUUID(), randomUUID()].map(sessionHash);
    const member = (x: string) => `${x}:abc.`;
    for (const x of [h, other, gone]) await store.create(x, session, 60_000, 0);
    for (const x of [h, other, gone])
      await store.change(x, 'abc.', { op: 'subscribe', uri: 'a://1' }, 60_000);
    await store.change(other, 'abc.', { op: 'unsubscribe', uri: 'a://1' }, 60_000);
    await store.remove(other);
    assert.deepEqual(
      (await store.subscribers('a://1')).sort(),
      [h, gone].map(member).sort(),
      'unsubscribing leaves it',
    );
    assert.deepEqual(await store.subscribers('a://2'), []);

    const data = '{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"a://1"}}';
    assert.equal(
      await store.notify(member(h), 'a://1', data, events),
      -2,
      'no GET stream: nowhere to record it',
    );
    await store.hold(h, 'abc.0', 'node1');
    assert.deepEqual(await store.notify(member(h), 'a://1', data, events), {
      index: 0,
      stream: 'abc.0',
      holder: 'node1',
    });
    assert.deepEqual(await store.notify(member(h), 'a://1', data, events), {
      index: 1,
      stream: 'abc.0',
      holder: 'node1',
    });
    // The records of `gone` expired (here: deleted behind the store's back): notify drops it from the index.
    await client.del(store.key(gone));
    assert.equal(await store.notify(member(gone), 'a://1', data, events), -1);
    assert.deepEqual(await store.subscribers('a://1'), [member(h)]);
    // What notify recorded is the GET stream's events.
    const entries = await client.xrange(events.streamKeyOf(h, 'abc.0'), '-', '+');
    assert.deepEqual(
      entries.map(([, fields]) => fields[1]),
      [data, data],
    );

    // An index entry lost (a Redis that restarted from an older state) comes back with the record's next touch.
    await client.zrem(
      `${store.keyPrefix}:subscribers:${createHash('sha1').update('a://1').digest('hex')}`,
      member(h),
    );
    assert.deepEqual(await store.subscribers('a://1'), []);
    await store.touch(h, 'abc.', 60_000, 1);
    assert.deepEqual(await store.subscribers('a://1'), [member(h)]);
    // DELETE takes the session out of every index.
    await store.remove(h);
    assert.deepEqual(await store.subscribers('a://1'), []);
  });

  test('touch, change and hold say when the record is gone; remove tells every process', async () => {
    const { store, heard } = await isolated();
    const h = sessionHash(randomUUID());
    await store.create(h, session, 60_000, 0);
    assert.equal(await store.touch(h, 'abc.', 60_000, 5), true);
    assert.equal(await store.hold(h, 'abc.0', 'node1'), true);
    assert.deepEqual([...(await store.load(h))!.holders], [['abc.0', 'node1']]);
    await store.remove(h);
    assert.equal(await store.touch(h, 'abc.', 60_000, 6), false);
    assert.equal(await store.change(h, 'abc.', { op: 'level', level: 'debug' }, 60_000), undefined);
    assert.equal(await store.hold(h, 'abc.0', 'node2'), false);
    assert.deepEqual(await busSoFar(store, heard), [
      { k: 'hold', s: h, x: 'abc.0', by: 'node1' },
      { k: 'closed', s: h },
    ]);
  });

  test('a record expires after its TTL unless touched', async () => {
    const { store } = await isolated();
    const h = sessionHash(randomUUID());
    // The TTL read from Redis, not raced with sleeps: 150 ms margins around 400 ms failed on a busy machine.
    await store.create(h, session, 60_000, 0);
    const ttl = () => client.pttl(store.key(h));
    assert.ok((await ttl()) > 50_000, 'created with its TTL');
    await client.pexpire(store.key(h), 1000); // most of the TTL gone
    assert.equal(await store.touch(h, 'abc.', 60_000, 1), true);
    assert.ok((await ttl()) > 50_000, 'kept alive by the touch');
    assert.equal(await store.touch(h, 'abc.', 100, 2), true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await store.load(h), undefined);
  });

  test('Redis unreachable: every call rejects with StoreUnavailableError', async () => {
    const down = createRedisClient('redis://127.0.0.1:1', { commandTimeoutMs: 200 });
    const store = new SessionStore(down, 'x', 'x:bus', 'node-a');
    try {
      await assert.rejects(store.load('h'), StoreUnavailableError);
      await assert.rejects(store.touch('h', 'abc.', 1000, 0), StoreUnavailableError);
      await assert.rejects(store.create('h', session, 1000, 0), StoreUnavailableError);
    } finally {
      down.disconnect();
    }
  });
});
