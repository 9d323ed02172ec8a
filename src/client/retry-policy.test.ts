import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DEFAULT_RETRY_POLICY,
  isTransientStatus,
  retryAfterMs,
  retryDelay,
  retryPolicy,
} from './retry-policy.js';

test('without jitter the backoff doubles from initialDelayMs up to maxDelayMs', () => {
  const policy = retryPolicy({ initialDelayMs: 100, maxDelayMs: 1000, jitter: 0 });
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map((attempt) => retryDelay(policy, attempt, Math.random)),
    [100, 200, 400, 800, 1000, 1000],
  );
});

test('full jitter (the default) draws between 0 and the backoff, never past it', () => {
  const policy = retryPolicy({ initialDelayMs: 100, maxDelayMs: 1000 });
  assert.equal(policy.jitter, 1);
  assert.equal(
    retryDelay(policy, 3, () => 0),
    400,
  );
  assert.equal(
    retryDelay(policy, 3, () => 0.5),
    200,
  );
  assert.equal(
    retryDelay(policy, 3, () => 0.999999),
    0,
  );
  assert.equal(
    retryDelay(policy, 9, () => 0),
    1000,
  );
});

test('partial jitter randomizes only its share of the backoff', () => {
  const policy = retryPolicy({ initialDelayMs: 100, maxDelayMs: 1000, jitter: 0.5 });
  assert.equal(
    retryDelay(policy, 2, () => 0),
    200,
  );
  assert.equal(
    retryDelay(policy, 2, () => 0.999999),
    100,
  );
});

test('a delay the server asked for is the wait, exactly, whatever the attempt and the ceiling', () => {
  const policy = retryPolicy({ jitter: 1 });
  assert.equal(
    retryDelay(policy, 1, () => 0.5, 30_000),
    30_000,
  );
  assert.equal(retryDelay(policy, 7, Math.random, 500), 500);
  assert.equal(retryDelay(policy, 7, Math.random, 0), 0);
});

test('the defaults are 5 attempts, 500 ms to 10 s, full jitter; invalid fields are named', () => {
  assert.deepEqual(retryPolicy(), DEFAULT_RETRY_POLICY);
  assert.deepEqual(DEFAULT_RETRY_POLICY, {
    maxAttempts: 5,
    initialDelayMs: 500,
    maxDelayMs: 10_000,
    jitter: 1,
  });
  assert.equal(retryPolicy({ maxAttempts: 0 }).maxAttempts, 0);
  assert.throws(() => retryPolicy({ maxAttempts: -1 }), /retry\.maxAttempts must be a non-negative integer/);
  assert.throws(() => retryPolicy({ maxAttempts: 1.5 }), /retry\.maxAttempts/);
  assert.throws(() => retryPolicy({ initialDelayMs: 1.5 }), /retry\.initialDelayMs/);
  assert.throws(() => retryPolicy({ initialDelayMs: 10, maxDelayMs: 5 }), /retry\.maxDelayMs/);
  assert.throws(() => retryPolicy({ jitter: 2 }), /retry\.jitter must be a number from 0 to 1/);
  assert.throws(() => retryPolicy({ jitter: 'full' as unknown as number }), /retry\.jitter/);
});

test('408, 429 and 5xx are transient; other statuses are not', () => {
  assert.deepEqual(
    [400, 401, 403, 404, 405, 408, 429, 500, 502, 503].filter(isTransientStatus),
    [408, 429, 500, 502, 503],
  );
});

test('Retry-After in seconds or as a date', () => {
  assert.equal(retryAfterMs(null, 0), undefined);
  assert.equal(retryAfterMs(' 7 ', 0), 7000);
  const now = Date.parse('2025-01-01T00:00:00Z');
  assert.equal(retryAfterMs('Wed, 01 Jan 2025 00:00:03 GMT', now), 3000);
  assert.equal(retryAfterMs('Tue, 31 Dec 2024 00:00:00 GMT', now), 0);
  assert.equal(retryAfterMs('soon', now), undefined);
});
