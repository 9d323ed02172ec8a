// RedisEventStore on a Redis Cluster of three masters and their replicas: the same contract as on one server,
// with each session's keys in one hash slot, and a failover that keeps what the replica had.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { eventStoreContract } from '../test-support/event-store-contract.js';
import { startRedisCluster } from '../test-support/redis-cluster-server.js';
import { sessionHash } from '../util/session-hash.js';
import { createRedisClusterClient } from './redis-cluster-client.js';
import { RedisEventStore } from './redis-event-store.js';
import { StoreUnavailableError } from './store-unavailable-error.js';

const cluster = await startRedisCluster();
const client = createRedisClusterClient(cluster.address.cluster);
after(async () => {
  await client.quit();
  await cluster.stop();
});

eventStoreContract(
  'RedisEventStore on a Redis Cluster',
  (limits) => new RedisEventStore({ redis: client, maxBytesPerStream: limits?.maxBytes }),
);

describe('RedisEventStore on a Redis Cluster', () => {
  test('sessions spread over the shards; one session’s keys share a slot; sessionClosed deletes them all', async () => {
    const keyPrefix = `test-${randomUUID()}`;
    const store = new RedisEventStore({ redis: client, keyPrefix });
    const sessions = Array.from({ length: 12 }, () => randomUUID());
    for (const s of sessions) {
      await store.open(s, 'a');
      await store.append(s, 'a', 'one');
      await store.open(s, 'b');
      await store.append(s, 'b', 'two');
    }
    const masters = new Set<number>();
    for (const node of client.nodes('master')) {
      const held = await node.keys(`${keyPrefix}:*`);
      if (held.length > 0) masters.add(node.options.port!);
      // Whatever a master holds of a session, it holds all of it: its hash and both streams.
      assert.equal(held.length % 3, 0, `${node.options.port} holds whole sessions`);
    }
    assert.ok(masters.size > 1, `12 sessions on ${masters.size} shard(s)`);
    for (const s of sessions) await store.sessionClosed(s);
    for (const node of client.nodes('master')) assert.deepEqual(await node.keys(`${keyPrefix}:*`), []);
  });

  test('streams opened, written and closed in one turn are sealed in their session’s slot, and replay', async () => {
    const store = new RedisEventStore({ redis: client, keyPrefix: `test-${randomUUID()}` });
    const sessions = Array.from({ length: 12 }, () => randomUUID());
    await Promise.all(
      sessions.flatMap((s) => [
        store.open(s, 'p'),
        store.append(s, 'p', ''),
        store.append(s, 'p', `answer ${s}`),
        store.streamClosed(s, 'p'),
      ]),
    );
    for (const s of sessions) {
      const key = store.streamKeyOf(sessionHash(s), 'p');
      assert.equal(await client.type(key), 'string', 'sealed');
      assert.deepEqual(await store.after(s, 'p', 0), { events: [`answer ${s}`], closed: true });
      await store.sessionClosed(s);
      assert.equal(await client.exists(key), 0);
    }
  });

  test('a master killed: its replica takes over, with the events it had; calls fail meanwhile, then work', {
    timeout: 60_000,
  }, async () => {
    const store = new RedisEventStore({ redis: client, keyPrefix: `test-${randomUUID()}` });
    const s = randomUUID();
    await store.open(s, 'a');
    await store.append(s, 'a', 'before');
    const key = store.sessionKeyOf(sessionHash(s));
    const master = await cluster.masterOf(key);
    const replica = await cluster.replicaOf(master);
    await cluster.whenReplicated(master);
    await cluster.kill(master);
    await assert.rejects(store.append(s, 'a', 'during'), StoreUnavailableError);
    await cluster.whenHealthy(30_000);
    assert.equal(await cluster.masterOf(key), replica);
    let replay: Awaited<ReturnType<RedisEventStore['after']>> | undefined;
    for (const deadline = Date.now() + 15_000; replay === undefined; ) {
      // As a client would, with a pause between tries: the client learns the new master meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 100));
      replay = await store.after(s, 'a', -1).catch((err) => {
        if (Date.now() > deadline) throw err;
        return undefined;
      });
    }
    assert.deepEqual(replay, { events: ['before'], closed: false });
    assert.equal(await store.append(s, 'a', 'after'), 1);
  });
});
