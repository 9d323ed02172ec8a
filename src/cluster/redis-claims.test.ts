import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { redisForFile } from '../test-support/redis-server.js';
import { RedisClaims } from './redis-claims.js';

const { client } = await redisForFile();

/** Processes `ids` claiming on one fresh prefix. */
const processes = (...ids: string[]) => {
  const prefix = `t${randomUUID()}`;
  return ids.map((id) => new RedisClaims(client, prefix, id));
};

test('processes claiming one name at once all get the same holder, one of them', async () => {
  const claims = processes('a', 'b', 'c', 'd');
  const holders = await Promise.all(claims.map((c) => c.claim('session', 60_000)));
  assert.equal(new Set(holders).size, 1);
  assert.ok(['a', 'b', 'c', 'd'].includes(holders[0]!));
  // Names are apart.
  assert.equal(await claims[3]!.claim('another', 60_000), 'd');
});

test('a holder is replaced only by a claim naming it gone; the first such claim wins', async () => {
  const [a, b, c] = processes('a', 'b', 'c');
  assert.equal(await a!.claim('s', 60_000), 'a');
  assert.equal(await b!.claim('s', 60_000, 'z'), 'a', 'naming another process as gone changes nothing');
  const [byB, byC] = await Promise.all([b!.claim('s', 60_000, 'a'), c!.claim('s', 60_000, 'a')]);
  assert.equal(byB, byC);
  assert.notEqual(byB, 'a');
  assert.equal(await a!.claim('s', 60_000), byB, 'the old holder finds it moved');
});

test('release lets go only what this process holds; an unrenewed claim lapses', async () => {
  const [a, b] = processes('a', 'b');
  assert.equal(await a!.claim('s', 60_000), 'a');
  await b!.release('s');
  assert.equal(await b!.claim('s', 60_000), 'a');
  await a!.release('s');
  assert.equal(await b!.claim('s', 60_000), 'b');
  assert.equal(await a!.claim('short', 50), 'a');
  await sleep(120);
  assert.equal(await b!.claim('short', 60_000), 'b');
});
