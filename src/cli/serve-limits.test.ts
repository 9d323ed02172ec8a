import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseServeLimits, wholeNumber } from './serve-limits.js';
import { UsageError } from './usage-error.js';

const HTTP = { stdio: false, stateless: false };

test('--max-body: bytes, or KiB or MiB, up to 511 MiB', () => {
  const body = (text: string) => parseServeLimits({ 'max-body': text }, HTTP).maxBodyBytes;
  assert.equal(body('4194304'), 4194304);
  assert.equal(body('1024B'), 1024);
  assert.equal(body('512KiB'), 512 * 1024);
  assert.equal(body('16MiB'), 16 * 1024 * 1024);
  assert.equal(body('511 MiB'), 511 * 1024 ** 2);
});

test('--max-body out of bounds or in another unit: a usage error that says what it takes', () => {
  // 512 MiB is just past the longest string V8 makes, into which a body or line is decoded.
  for (const text of [
    '1023',
    '0',
    '512MiB',
    '536870889',
    '1GiB',
    '16MB',
    '16mb',
    '1.5MiB',
    '-1',
    'MiB',
    '',
  ]) {
    assert.throws(
      () => parseServeLimits({ 'max-body': text }, HTTP),
      (err: unknown) =>
        err instanceof UsageError &&
        err.message ===
          `--max-body takes a size from 1KiB to 511MiB, in bytes or with KiB or MiB (16MiB), not "${text}"`,
      text,
    );
  }
});

test('--session-idle-timeout takes 0 (never); --max-sessions at least 1', () => {
  assert.deepEqual(parseServeLimits({ 'session-idle-timeout': '0', 'max-sessions': '1' }, HTTP), {
    maxBodyBytes: undefined,
    sessionIdleTimeoutMs: 0,
    maxSessions: 1,
  });
  assert.throws(
    () => parseServeLimits({ 'max-sessions': '0' }, HTTP),
    /--max-sessions takes a whole number of at least 1, not "0"/,
  );
  assert.throws(
    () => parseServeLimits({ 'session-idle-timeout': '1e3' }, HTTP),
    /--session-idle-timeout takes a whole number of at least 0, not "1e3"/,
  );
});

test('none given: every bound left to the handlers', () => {
  assert.deepEqual(parseServeLimits({}, HTTP), {
    maxBodyBytes: undefined,
    sessionIdleTimeoutMs: undefined,
    maxSessions: undefined,
  });
});

test('--stdio and --stateless take only --max-body', () => {
  assert.throws(
    () => parseServeLimits({ 'max-body': '1MiB', 'max-sessions': '5' }, { stdio: true, stateless: false }),
    /--max-sessions bounds the HTTP endpoints' sessions; --stdio serves one client/,
  );
  assert.equal(
    parseServeLimits({ 'max-body': '1MiB' }, { stdio: true, stateless: false }).maxBodyBytes,
    1024 * 1024,
  );
  assert.throws(
    () => parseServeLimits({ 'max-sessions': '5' }, { stdio: false, stateless: true }),
    /--max-sessions bounds sessions; --stateless has none/,
  );
  assert.equal(
    parseServeLimits({ 'max-body': '1MiB' }, { stdio: false, stateless: true }).maxBodyBytes,
    1024 * 1024,
  );
});

test('wholeNumber refuses what Number would read: exponents, signs, fractions, spaces', () => {
  assert.equal(wholeNumber('--x', '42', 1), 42);
  for (const text of ['1e3', '+5', '2.0', ' 7', '0x10', '9007199254740993']) {
    assert.throws(() => wholeNumber('--x', text, 0), UsageError, text);
  }
});
