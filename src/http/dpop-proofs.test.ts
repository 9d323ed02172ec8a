// DPoPProofs: the checks of RFC 9449 §4.3, each refused with its reason, against proofs made by hand with jose.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { base64url, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { fc, fuzzRuns } from '../test-support/fuzz.js';
import { DPoPProofs } from './dpop-proofs.js';

const URL_ = 'https://mcp.example.com/mcp';
const pair = await generateKeyPair('ES256', { extractable: true });
const publicJwk = await exportJWK(pair.publicKey);
const privateJwk = await exportJWK(pair.privateKey);
let now = Date.now();
const clock = { now: () => now };

interface Made {
  header?: Record<string, unknown>;
  claims?: Record<string, unknown>;
}

/** A proof for POST `URL_`, with `changes` over a good one. */
function proof(
  { header = {}, claims = {} }: Made = {},
  key: Parameters<SignJWT['sign']>[0] = pair.privateKey,
) {
  return new SignJWT({
    htm: 'POST',
    htu: URL_,
    jti: crypto.randomUUID(),
    iat: Math.floor(now / 1000),
    ...claims,
  })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: publicJwk, ...header })
    .sign(key);
}

const request = { method: 'POST', url: URL_ };

test('a good proof: the thumbprint of its key; the same proof again is a replay', async () => {
  const proofs = new DPoPProofs(clock);
  const made = await proof();
  const first = await proofs.check(made, request);
  assert.ok('jkt' in first, JSON.stringify(first));
  assert.equal(first.jkt.length, 43);
  assert.deepEqual(await proofs.check(made, request), {
    problem: 'the proof was used before: make a new one for each request',
  });
  // The URL is compared without its query.
  assert.ok('jkt' in (await proofs.check(await proof(), { method: 'POST', url: `${URL_}?x=1` })));
});

test('each rule of RFC 9449 §4.3, refused with its reason', async () => {
  const proofs = new DPoPProofs(clock);
  const hmac = new TextEncoder().encode('a shared secret of thirty-two bytes!');
  const cases: [
    Promise<string> | string,
    RegExp,
    Partial<typeof request & { accessToken: string; nonce: string }>?,
  ][] = [
    [Promise.resolve(''), /no DPoP proof/],
    ['a.b.c, d.e.f', /more than one/],
    ['not a jwt', /not a JWT/],
    [proof({ header: { typ: 'JWT' } }), /not typed dpop\+jwt/],
    [proof({ header: { alg: 'HS256' } }, hmac), /algorithm is not one of/],
    [proof({ header: { jwk: undefined } }), /carries no key/],
    [proof({ header: { jwk: privateJwk } }), /private part/],
    [proof({ header: { jwk: { ...publicJwk, x: publicJwk.y } as JWK } }), /not signed by the key it carries/],
    [proof({ claims: { jti: undefined } }), /no jti/],
    [proof({ claims: { htm: 'GET' } }), /is for GET, not POST/],
    [proof({ claims: { htu: 'https://elsewhere.example/mcp' } }), /is for https:\/\/elsewhere/],
    [proof({ claims: { iat: Math.floor(now / 1000) - 400 } }), /within five minutes/],
    [proof({ claims: { iat: Math.floor(now / 1000) + 400 } }), /within five minutes/],
    [proof(), /for another access token/, { accessToken: 'the-token' }],
    [proof({ claims: { nonce: 'old' } }), /lacks the nonce/, { nonce: 'new' }],
  ];
  for (const [made, reason, extra] of cases) {
    const checked = await proofs.check(await made, { ...request, ...extra });
    assert.ok('problem' in checked, `${reason}: ${JSON.stringify(checked)}`);
    assert.match(checked.problem, reason);
  }
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode('the-token'));
  const ath = base64url.encode(new Uint8Array(digest));
  const forToken = await proofs.check(await proof({ claims: { ath } }), {
    ...request,
    accessToken: 'the-token',
  });
  assert.ok('jkt' in forToken, JSON.stringify(forToken));
});

test('a proof replayed later within its five minutes is still a replay; past them, too old', async () => {
  const proofs = new DPoPProofs(clock);
  const made = await proof();
  assert.ok('jkt' in (await proofs.check(made, request)));
  now += 4 * 60_000;
  assert.match(((await proofs.check(made, request)) as { problem: string }).problem, /used before/);
  now += 2 * 60_000;
  assert.match(((await proofs.check(made, request)) as { problem: string }).problem, /within five minutes/);
});

test('hostile proofs: never a throw, never a key, always a reason', async () => {
  const proofs = new DPoPProofs(clock);
  const segment = fc.oneof(
    fc.string(),
    fc.json().map((json) => Buffer.from(json).toString('base64url')),
    fc.constant(
      Buffer.from(JSON.stringify({ typ: 'dpop+jwt', alg: 'ES256', jwk: publicJwk })).toString('base64url'),
    ),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 4 }), async (parts) => {
      const checked = await proofs.check(parts.join('.'), request);
      assert.ok('problem' in checked && checked.problem.length > 0);
    }),
    fuzzRuns(300),
  );
});
