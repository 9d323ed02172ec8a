import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import { listenLoopback } from '../test-support/http-loopback.js';
import { jwtVerifier } from './jwt-verifier.js';

const ISSUER = 'https://as.example';
const RESOURCE = 'http://127.0.0.1:1/mcp';

/** A signing key, with its public JWK under `kid`. */
async function signingKey(kid: string, alg = 'ES256') {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } as JWK };
}
type Key = Awaited<ReturnType<typeof signingKey>>;

// The authorization server's JWKS, which a test may change (a rotation) or take down (`up`).
let published: JWK[] = [];
let up = true;
let fetches = 0;
const jwks = await listenLoopback((_req, res) => {
  fetches++;
  if (!up) {
    res.writeHead(503).end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: published }));
});
after(() => jwks.close());

const COOLDOWN_MS = 100;
const verifier = (keysCooldownMs = COOLDOWN_MS) =>
  jwtVerifier({
    issuer: ISSUER,
    jwksUrl: `http://127.0.0.1:${jwks.port}/jwks`,
    resource: RESOURCE,
    keysCooldownMs,
  });

function sign(key: Key, claims: JWTPayload, header: { kid?: string } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: ISSUER, aud: RESOURCE, sub: 'ada', iat: now, exp: now + 600, ...claims })
    .setProtectedHeader({ alg: key.alg, typ: 'at+jwt', kid: key.kid, ...header })
    .sign(key.privateKey);
}

const first = await signingKey('k1');
const rsa = await signingKey('k2', 'RS256');

test('a token signed by a published key, for this resource, from the issuer: its subject and scopes', async () => {
  published = [first.jwk, rsa.jwk];
  const check = verifier();
  assert.deepEqual(await check.verify(await sign(first, { scope: 'mcp:tools mcp:read' })), {
    principal: 'ada',
    scopes: ['mcp:tools', 'mcp:read'],
  });
  assert.deepEqual(
    await check.verify(await sign(rsa, { scp: ['mcp:tools'], sub: undefined, client_id: 'robot' })),
    {
      principal: 'robot',
      scopes: ['mcp:tools'],
    },
  );
  // An audience with a trailing slash names the same server.
  assert.deepEqual(await check.verify(await sign(first, { aud: `${RESOURCE}/` })), {
    principal: 'ada',
    scopes: [],
  });
});

test('refused: another audience, another issuer, expired, not yet valid, no subject, forged, unsigned', async () => {
  published = [first.jwk];
  const check = verifier();
  const now = Math.floor(Date.now() / 1000);
  const stranger = await signingKey('k1');
  const refused = [
    await sign(first, { aud: 'https://other.example/mcp' }),
    await sign(first, { iss: 'https://evil.example' }),
    await sign(first, { exp: now - 120 }),
    await sign(first, { nbf: now + 600 }),
    await sign(first, { exp: undefined }),
    await sign(first, { sub: undefined }),
    // Signed by a key of the same id that the issuer never published.
    await sign(stranger, {}),
    // alg "none": no signature at all.
    `${Buffer.from(JSON.stringify({ alg: 'none', kid: 'k1' })).toString('base64url')}.${Buffer.from(
      JSON.stringify({ iss: ISSUER, aud: RESOURCE, sub: 'ada', exp: now + 600 }),
    ).toString('base64url')}.`,
    'not a jwt',
  ];
  for (const [i, token] of refused.entries())
    assert.equal(await check.verify(token), undefined, `token ${i}`);
});

test('a key rotated in is fetched when a token names it; the keys cannot be fetched: rejects (503, not 401)', async () => {
  published = [first.jwk];
  const check = verifier();
  fetches = 0;
  assert.ok(await check.verify(await sign(first, {})));
  assert.ok(await check.verify(await sign(first, {})));
  assert.equal(fetches, 1, 'the keys are fetched once');
  const second = await signingKey('k3');
  published = [first.jwk, second.jwk];
  // Past the cooldown, a token naming a key it does not know has the keys fetched again.
  await new Promise((resolve) => setTimeout(resolve, COOLDOWN_MS * 2));
  assert.deepEqual(await check.verify(await sign(second, {})), { principal: 'ada', scopes: [] });
  assert.equal(fetches, 2, 'fetched again for the key it did not know');
  // Within the cooldown, a made-up key id is refused without a fetch. A cooldown no busy machine outlasts:
  // COOLDOWN_MS can pass while the made-up key is generated and signed.
  const madeUp = await signingKey('k9');
  const cooling = verifier(60_000);
  fetches = 0;
  assert.ok(await cooling.verify(await sign(first, {})));
  assert.equal(await cooling.verify(await sign(madeUp, {})), undefined);
  assert.equal(fetches, 1, 'no fetch for the made-up key');

  up = false;
  try {
    const token = await sign(first, {});
    await assert.rejects(async () => verifier().verify(token));
  } finally {
    up = true;
  }
});

test('keys on plain http are refused at once, but on loopback: anyone on the way could sign tokens', () => {
  for (const jwksUrl of ['http://as.example/jwks', 'http://10.0.0.1/jwks', 'ftp://as.example/jwks']) {
    assert.throws(
      () => jwtVerifier({ issuer: ISSUER, jwksUrl, resource: RESOURCE }),
      /jwtVerifier: the jwksUrl .* is not https: keys fetched over plain http could be anyone's/,
      jwksUrl,
    );
  }
  for (const jwksUrl of ['https://as.example/jwks', 'http://localhost:9/jwks', 'http://[::1]:9/jwks']) {
    jwtVerifier({ issuer: ISSUER, jwksUrl, resource: RESOURCE });
  }
});

test('a token bound to a key (cnf.jkt, RFC 9449 §6): the grant names the thumbprint; a cnf without one binds nothing', async () => {
  published = [first.jwk];
  const check = verifier();
  assert.deepEqual(await check.verify(await sign(first, { cnf: { jkt: 'thumbprint' } })), {
    principal: 'ada',
    scopes: [],
    jkt: 'thumbprint',
  });
  assert.deepEqual(await check.verify(await sign(first, { cnf: { 'x5t#S256': 'other' } })), {
    principal: 'ada',
    scopes: [],
  });
});
