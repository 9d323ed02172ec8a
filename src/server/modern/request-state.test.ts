import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fc, fuzzRuns } from '../../test-support/fuzz.js';
import { ManualClock } from '../../test-support/manual-clock.js';
import { bindingOf, RequestStateSealer } from './request-state.js';

const oldKey = { id: 'k2026a', secret: 'a'.repeat(32) };
const newKey = { id: 'k2026b', secret: new Uint8Array(32).fill(7) };
const bind = bindingOf({ principal: 'alice', method: 'tools/call', target: 'ask', args: { a: 1 } });

describe('RequestStateSealer', () => {
  test('a sealed payload opens with the same bind, in the documented wire shape', () => {
    const sealer = new RequestStateSealer([newKey]);
    const payload = { step: 2, answers: ['Ada', { nested: true }], text: 'é ✓' };
    const token = sealer.seal(payload, bind);
    assert.match(token, /^s1\.k2026b\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(sealer.open(token, bind), { ok: true, payload });
    const body = JSON.parse(Buffer.from(token.split('.')[2], 'base64url').toString('utf8'));
    assert.deepEqual(Object.keys(body), ['p', 'exp', 'b']);
    assert.ok(
      !token.includes('alice') && !JSON.stringify(body).includes('alice'),
      'the bind is a tag, not the text',
    );
  });

  test('a token opens only with the bind it was sealed for', () => {
    const sealer = new RequestStateSealer([newKey]);
    const token = sealer.seal('s', bind);
    const others = [
      bindingOf({ principal: 'bob', method: 'tools/call', target: 'ask', args: { a: 1 } }),
      bindingOf({ principal: 'alice', method: 'prompts/get', target: 'ask', args: { a: 1 } }),
      bindingOf({ principal: 'alice', method: 'tools/call', target: 'other', args: { a: 1 } }),
      bindingOf({ principal: 'alice', method: 'tools/call', target: 'ask', args: { a: 2 } }),
      bindingOf({ method: 'tools/call', target: 'ask', args: { a: 1 } }),
      '',
    ];
    for (const other of others) assert.deepEqual(sealer.open(token, other), { ok: false, reason: 'bind' });
  });

  test('every single-character change of a token is refused', () => {
    const sealer = new RequestStateSealer([newKey]);
    const token = sealer.seal({ step: 1, note: 'x'.repeat(40) }, bind);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ';
    fc.assert(
      fc.property(fc.nat({ max: token.length - 1 }), fc.constantFrom(...alphabet), (at, c) => {
        fc.pre(token[at] !== c);
        const tampered = token.slice(0, at) + c + token.slice(at + 1);
        const opened = sealer.open(tampered, bind);
        assert.equal(opened.ok, false, `accepted ${tampered}`);
      }),
      fuzzRuns(2000),
    );
    // Exhaustively, the last character: its low bits are padding a lenient decoder would ignore.
    for (const c of alphabet) {
      if (c !== token.at(-1)) assert.equal(sealer.open(token.slice(0, -1) + c, bind).ok, false);
    }
  });

  test('a re-signed body under a known key id still needs that key', () => {
    const sealer = new RequestStateSealer([newKey]);
    const [, kid, , macPart] = sealer.seal('s', bind).split('.');
    const forged = Buffer.from(JSON.stringify({ p: 'admin', exp: 9e15, b: 'x' })).toString('base64url');
    assert.deepEqual(sealer.open(`s1.${kid}.${forged}.${macPart}`, bind), { ok: false, reason: 'mac' });
  });

  test('expires after the TTL on the injected clock', () => {
    const clock = new ManualClock();
    const sealer = new RequestStateSealer([newKey], { ttlMs: 1000, clock });
    const token = sealer.seal('s', bind);
    clock.advance(999);
    assert.equal(sealer.open(token, bind).ok, true);
    clock.advance(1);
    assert.deepEqual(sealer.open(token, bind), { ok: false, reason: 'expired' });
  });

  test('the default TTL is five minutes', () => {
    const clock = new ManualClock();
    const sealer = new RequestStateSealer([newKey], { clock });
    const token = sealer.seal('s', bind);
    clock.advance(299_999);
    assert.equal(sealer.open(token, bind).ok, true);
    clock.advance(1);
    assert.equal(sealer.open(token, bind).ok, false);
  });

  test('rotation: the first key signs, every key verifies, an unknown id is refused', () => {
    const before = new RequestStateSealer([oldKey]);
    const during = new RequestStateSealer([newKey, oldKey]);
    const after = new RequestStateSealer([newKey]);
    const old = before.seal({ v: 1 }, bind);
    assert.deepEqual(during.open(old, bind), { ok: true, payload: { v: 1 } });
    assert.ok(during.seal('x', bind).startsWith('s1.k2026b.'));
    assert.deepEqual(after.open(old, bind), { ok: false, reason: 'unknown-key' });
    // The same id with another secret is a forgery, not a rotation.
    const impostor = new RequestStateSealer([{ id: 'k2026a', secret: 'b'.repeat(32) }]);
    assert.deepEqual(impostor.open(old, bind), { ok: false, reason: 'mac' });
  });

  test('without keys, a per-process key: its tokens open in this sealer only', () => {
    const a = new RequestStateSealer(undefined);
    const b = new RequestStateSealer(undefined);
    const token = a.seal('s', bind);
    assert.equal(a.open(token, bind).ok, true);
    assert.deepEqual(b.open(token, bind), { ok: false, reason: 'unknown-key' });
  });

  test('refuses to seal past maxBytes, and opens nothing longer', () => {
    const sealer = new RequestStateSealer([newKey], { maxBytes: 300 });
    assert.ok(sealer.seal('x'.repeat(50), bind).length <= 300);
    assert.throws(
      () => sealer.seal('x'.repeat(300), bind),
      /requestState would be \d+ bytes, over the limit of 300/,
    );
    const big = new RequestStateSealer([newKey]).seal('x'.repeat(300), bind);
    assert.deepEqual(sealer.open(big, bind), { ok: false, reason: 'too-large' });
    const defaults = new RequestStateSealer([newKey]);
    assert.throws(() => defaults.seal('x'.repeat(64 * 1024), bind), /over the limit of 65536/);
    assert.deepEqual(defaults.open('s1.'.padEnd(64 * 1024 + 1, 'a'), bind), {
      ok: false,
      reason: 'too-large',
    });
  });

  test('a payload JSON cannot hold is refused with a clear error', () => {
    const sealer = new RequestStateSealer([newKey]);
    assert.throws(() => sealer.seal({ n: 1n }, bind), /requestState payload is not JSON-serializable/);
  });

  test('refuses bad keys and options at construction', () => {
    assert.throws(() => new RequestStateSealer([]), /at least one key/);
    assert.throws(() => new RequestStateSealer([{ id: 'a.b', secret: 'a'.repeat(32) }]), /key id "a.b"/);
    assert.throws(() => new RequestStateSealer([{ id: '', secret: 'a'.repeat(32) }]), /key id/);
    assert.throws(
      () => new RequestStateSealer([{ id: 'k', secret: 'short' }]),
      /5 bytes; it needs at least 32/,
    );
    assert.throws(() => new RequestStateSealer([oldKey, { ...oldKey }]), /given twice/);
    assert.throws(() => new RequestStateSealer([oldKey], { ttlMs: 0 }), /ttlMs must be a positive number/);
    assert.throws(() => new RequestStateSealer([oldKey], { maxBytes: Number.NaN }), /maxBytes/);
  });

  test('malformed tokens are named so', () => {
    const sealer = new RequestStateSealer([newKey]);
    const token = sealer.seal('s', bind);
    for (const bad of [
      undefined,
      null,
      42,
      {},
      ['s1'],
      '',
      's1',
      's1.k2026b',
      token + '.x',
      'v1' + token.slice(2),
      token.replace(/\.[^.]+\./, '.k2026b..'),
    ]) {
      assert.deepEqual(sealer.open(bad, bind), { ok: false, reason: 'malformed' }, String(bad));
    }
  });

  test('never throws on hostile tokens, and accepts none of them', () => {
    const sealer = new RequestStateSealer([newKey]);
    const token = sealer.seal({ step: 1 }, bind);
    const [v, kid] = token.split('.');
    const parts = fc.array(fc.oneof(fc.string(), fc.base64String(), fc.constantFrom(v, kid)), {
      maxLength: 6,
    });
    const hostile = fc.oneof(
      fc.anything(),
      fc.string({ unit: 'binary' }),
      parts.map((p) => p.join('.')),
    );
    fc.assert(
      fc.property(hostile, fc.string(), (t, b) => {
        const opened = sealer.open(t, b);
        assert.equal(opened.ok, false);
      }),
    );
  });
});

describe('bindingOf', () => {
  test('arguments bind by value, not by key order', () => {
    const a = bindingOf({
      method: 'tools/call',
      target: 't',
      args: { a: 1, b: { x: [1, { q: 2, p: 3 }], y: null } },
    });
    const b = bindingOf({
      method: 'tools/call',
      target: 't',
      args: { b: { y: null, x: [1, { p: 3, q: 2 }] }, a: 1 },
    });
    assert.equal(a, b);
    assert.equal(
      bindingOf({ method: 'm', args: { a: 1, b: 2 } }),
      bindingOf({ method: 'm', args: { b: 2, a: 1 } }),
    );
  });

  test('every part counts, and parts cannot run into one another', () => {
    const seen = new Set([
      bindingOf({ method: 'm' }),
      bindingOf({ method: 'm', principal: 'p' }),
      bindingOf({ method: 'm', target: 'p' }),
      bindingOf({ method: 'm', args: {} }),
      bindingOf({ method: 'm', args: [] }),
      bindingOf({ method: 'm', args: { a: '1' } }),
      bindingOf({ method: 'm', args: { a: 1 } }),
      bindingOf({ method: 'm', args: [1, 2] }),
      bindingOf({ method: 'm', args: [[1], 2] }),
      bindingOf({ method: 'm', args: { 'a:1': 1 } }),
      bindingOf({ method: 'm', principal: 'a","b' }),
      bindingOf({ method: 'm', principal: 'a', target: 'b' }),
    ]);
    assert.equal(seen.size, 12);
  });

  test('equals hashing JSON with sorted keys; deep and shared values are fine, cycles are refused', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (args) => {
        const shuffled = JSON.parse(
          JSON.stringify(args, (_k, v) =>
            v && typeof v === 'object' && !Array.isArray(v)
              ? Object.fromEntries(Object.entries(v).reverse())
              : v,
          ),
        );
        assert.equal(bindingOf({ method: 'm', args }), bindingOf({ method: 'm', args: shuffled }));
      }),
    );
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    assert.equal(typeof bindingOf({ method: 'm', args: deep }), 'string');
    const shared = { x: 1 };
    assert.equal(typeof bindingOf({ method: 'm', args: [shared, shared] }), 'string');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.throws(() => bindingOf({ method: 'm', args: cyclic }), /cyclic/);
  });
});
