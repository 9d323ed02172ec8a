import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { RequestStateSealer } from '../server/modern/request-state.js';
import { ManualClock } from '../test-support/manual-clock.js';
import { redisForFile } from '../test-support/redis-server.js';
import { SharedRequestStateKeys } from './request-state-keys.js';

const { client } = await redisForFile();

const PROPAGATION_MS = 30_000;
const TTL_MS = 300_000;
const BIND = 'bind';

/** Two processes' keys and sealers on one Redis prefix, on one manual clock. */
function twoProcesses(options: { rotateEveryMs?: number } = {}) {
  const clock = new ManualClock();
  clock.advance(1_000_000);
  const prefix = `t${randomUUID()}`;
  return ['a', 'b'].map(() => {
    const keys = new SharedRequestStateKeys(client, prefix, {
      ...options,
      propagationMs: PROPAGATION_MS,
      graceMs: TTL_MS,
      clock,
    });
    const sealer = new RequestStateSealer(undefined, { ttlMs: TTL_MS, clock });
    keys.attach(sealer);
    return { keys, sealer, clock };
  });
}

const kid = (token: string) => token.split('.')[1];

test('the first refresh creates one key, and every process gets the same', async () => {
  const [a, b] = twoProcesses();
  const [first] = await a.keys.refresh();
  assert.deepEqual(await b.keys.refresh(), [first]);
  const token = a.sealer.seal({ n: 1 }, BIND);
  assert.equal(kid(token), first.id);
  assert.deepEqual(b.sealer.open(token, BIND), { ok: true, payload: { n: 1 } });
});

test('a rotation: the new key opens everywhere first, signs after the propagation delay, and the previous one opens for the grace period', async () => {
  const [a, b] = twoProcesses();
  const [old] = await a.keys.refresh();
  await b.keys.refresh();
  const sealedBefore = a.sealer.seal('before', BIND);

  const rotated = await a.keys.rotate();
  assert.equal(rotated.length, 2);
  assert.equal(rotated[0].id, old.id, 'the previous key still signs until the new one is due');
  const next = rotated[1];
  await b.keys.refresh();
  assert.equal(kid(b.sealer.seal('x', BIND)), old.id);

  a.clock.advance(PROPAGATION_MS);
  await a.keys.refresh();
  await b.keys.refresh();
  const sealedAfter = a.sealer.seal('after', BIND);
  assert.equal(kid(sealedAfter), next.id);
  assert.equal(kid(b.sealer.seal('x', BIND)), next.id);
  // The previous key's state opens on the other process, during the grace period.
  assert.deepEqual(b.sealer.open(sealedBefore, BIND), { ok: true, payload: 'before' });
  assert.deepEqual(b.sealer.open(sealedAfter, BIND), { ok: true, payload: 'after' });

  a.clock.advance(TTL_MS - 1);
  await b.keys.refresh();
  assert.deepEqual(b.sealer.open(sealedAfter, BIND), { ok: true, payload: 'after' });
  assert.equal(b.keys.keys.length, 2, 'the previous key is kept until the grace period ends');

  a.clock.advance(1);
  const left = await b.keys.refresh();
  assert.deepEqual(
    left.map((k) => k.id),
    [next.id],
    'the previous key is dropped once the next one has signed for the grace period',
  );
  assert.deepEqual(b.sealer.open(sealedBefore, BIND), { ok: false, reason: 'unknown-key' });
  assert.deepEqual(b.sealer.open(a.sealer.seal('later', BIND), BIND), { ok: true, payload: 'later' });
});

test('with rotateEveryMs, the first process to refresh once the key is that old rotates, once', async () => {
  const [a, b] = twoProcesses({ rotateEveryMs: 3_600_000 });
  await a.keys.refresh();
  a.clock.advance(3_600_000);
  const [fromA, fromB] = await Promise.all([a.keys.refresh(), b.keys.refresh()]);
  assert.equal(fromA.length, 2);
  assert.deepEqual(fromA, fromB);
});
