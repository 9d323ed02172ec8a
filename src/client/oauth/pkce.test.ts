import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { createPkce, s256Challenge } from './pkce.js';

test('the S256 challenge of RFC 7636 Appendix B', async () => {
  assert.equal(
    await s256Challenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'),
    'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  );
});

test('a fresh pair: a 43-character base64url verifier, its SHA-256 as the challenge, never the same twice', async () => {
  const pairs = await Promise.all(Array.from({ length: 50 }, () => createPkce()));
  for (const { verifier, challenge } of pairs) {
    assert.match(verifier, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(challenge, createHash('sha256').update(verifier).digest('base64url'));
  }
  assert.equal(new Set(pairs.map((p) => p.verifier)).size, pairs.length);
});
