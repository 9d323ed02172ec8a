import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_RECONNECT_POLICY, reconnectDelay, reconnectPolicy } from './client-reconnect.js';

test('waits double each time up to the maximum, spread by the jitter fraction either way', () => {
  const policy = reconnectPolicy({ initialDelayMs: 100, maxDelayMs: 1000, jitter: 0.5 });
  const middle = () => 0.5;
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map((n) => reconnectDelay(policy, n, middle)),
    [100, 200, 400, 800, 1000, 1000],
  );
  assert.equal(
    reconnectDelay(policy, 2, () => 0),
    100,
  );
  assert.equal(
    reconnectDelay(policy, 2, () => 0.999999),
    300,
  );
  // Jitter never pushes a wait past the maximum.
  assert.equal(
    reconnectDelay(policy, 9, () => 0.999999),
    1000,
  );
});

test("the server's retry: is the wait, exactly, whatever the attempt", () => {
  const policy = reconnectPolicy({ jitter: 1 });
  assert.equal(reconnectDelay(policy, 1, Math.random, 500), 500);
  assert.equal(reconnectDelay(policy, 7, Math.random, 0), 0);
});

test('fills in defaults and names the field a bad policy gets wrong', () => {
  assert.deepEqual(reconnectPolicy(), DEFAULT_RECONNECT_POLICY);
  assert.equal(reconnectPolicy({ maxAttempts: 0 }).maxAttempts, 0);
  assert.throws(() => reconnectPolicy({ maxAttempts: -1 }), /reconnect\.maxAttempts/);
  assert.throws(() => reconnectPolicy({ maxAttempts: 1.5 }), /reconnect\.maxAttempts/);
  assert.throws(() => reconnectPolicy({ initialDelayMs: 10, maxDelayMs: 5 }), /reconnect\.maxDelayMs/);
  assert.throws(() => reconnectPolicy({ jitter: 2 }), /reconnect\.jitter/);
});
