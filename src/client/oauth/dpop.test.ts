// DPoP-bound tokens (RFC 9449, SEP-1932): the OAuthClient proves its key at the token endpoint and on every request
// to a resource that takes such tokens, with the nonces the servers ask for. Against the test authorization server
// and a resource server here that checks proofs (DPoPProofs, as RFC 9449 §4.3 says), on loopback. The official suite's
// auth/dpop and auth/dpop-nonce run the same against their own mocks (scripts/conformance-client-next.sh).
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, beforeEach, describe, test } from 'node:test';
import { calculateJwkThumbprint } from 'jose';
import { DPoPProofs } from '../../http/dpop-proofs.js';
import { startAuthorizationServer } from '../../test-support/authorization-server.js';
import { listenLoopback, oneHeader } from '../../test-support/http-loopback.js';
import { OAuthClient, type OAuthState } from './oauth-client.js';
import { requestTokens } from './token-request.js';

const as = await startAuthorizationServer();
/** How the resource answers; reset before each test. */
const rs = {
  /** The schemes of its 401 challenge. */
  challenge: 'DPoP',
  /** The nonce a request's proof must carry. */
  nonce: (() => undefined) as () => string | undefined,
  /** Fields added to its Protected Resource Metadata. */
  metadata: {} as Record<string, unknown>,
  /** Each request with a token: its scheme, and its proof's `jti` (or what was wrong with the proof). */
  seen: [] as { scheme: string; method: string; proof: string }[],
};
const proofs = new DPoPProofs();
const server = await listenLoopback(async (req: IncomingMessage, res: ServerResponse) => {
  const base = `http://127.0.0.1:${server.port}`;
  if (req.url === '/.well-known/oauth-protected-resource/mcp') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ resource: `${base}/mcp`, authorization_servers: [as.issuer], ...rs.metadata }));
    return;
  }
  const refuse = (challenge: string, headers: Record<string, string> = {}) => {
    res.writeHead(401, { 'www-authenticate': challenge, ...headers }).end();
  };
  const metadata = `resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`;
  const [scheme, token] = (req.headers.authorization ?? '').split(' ');
  if (token === undefined)
    return refuse(
      rs.challenge
        .split(', ')
        .map((s) => `${s} ${metadata}`)
        .join(', '),
    );
  const grant = as.tokens.get(token);
  const method = req.method!;
  if (scheme === 'DPoP') {
    const nonce = rs.nonce();
    const url = `${base}/mcp`;
    const proof = await proofs.check(oneHeader(req.headers.dpop), { method, url, accessToken: token, nonce });
    if ('problem' in proof) {
      rs.seen.push({ scheme, method, proof: proof.nonce ? 'nonce' : proof.problem });
      return proof.nonce
        ? refuse('DPoP error="use_dpop_nonce"', { 'dpop-nonce': nonce! })
        : refuse('DPoP error="invalid_dpop_proof"');
    }
    rs.seen.push({ scheme, method, proof: proof.jti });
    if (proof.jkt !== grant?.jkt) return refuse('DPoP error="invalid_token"');
  } else {
    rs.seen.push({ scheme, method, proof: '' });
    // A DPoP-bound token presented as a Bearer one is no token (RFC 9449 §7.2).
    if (scheme !== 'Bearer' || grant === undefined || grant.jkt !== undefined)
      return refuse('Bearer error="invalid_token"');
  }
  res.writeHead(200, { 'content-type': 'text/plain' }).end(`ok ${method}`);
});
const mcpUrl = `http://127.0.0.1:${server.port}/mcp`;
after(() => Promise.all([as.close(), server.close()]));
beforeEach(() => {
  as.reset();
  as.dpop = true;
  Object.assign(rs, { challenge: 'DPoP', nonce: () => undefined, metadata: {}, seen: [] });
});

/** A client whose user approves at once (the test authorization server redirects with the code). */
function signingIn(store?: { state: OAuthState | undefined }): OAuthClient {
  return new OAuthClient({
    redirectUri: 'http://127.0.0.1:1/callback',
    authorize: async (url) => (await fetch(url, { redirect: 'manual' })).headers.get('location')!,
    ...(store && {
      store: {
        load: () => store.state,
        save: (state) => {
          store.state = state;
        },
      },
    }),
  });
}

async function call(auth: OAuthClient, method = 'POST'): Promise<string> {
  const response = await auth.fetch(mcpUrl, { method, ...(method === 'POST' && { body: '{}' }) });
  assert.equal(response.status, 200, `HTTP ${response.status}: ${response.headers.get('www-authenticate')}`);
  return response.text();
}

describe('OAuthClient, DPoP', { timeout: 20_000 }, () => {
  test('a resource that challenges with DPoP: a proof at the token endpoint, a bound token, a new proof on every request', async () => {
    const auth = signingIn();
    assert.equal(await call(auth), 'ok POST');
    assert.equal(await call(auth, 'GET'), 'ok GET');
    assert.equal(await call(auth), 'ok POST');
    const tokens = await auth.tokens();
    assert.equal(tokens?.token_type, 'DPoP');
    // Every request with the token: the DPoP scheme, a proof for its method, never the same proof twice.
    assert.deepEqual(
      rs.seen.map((s) => [s.scheme, s.method]),
      [
        ['DPoP', 'POST'],
        ['DPoP', 'GET'],
        ['DPoP', 'POST'],
      ],
    );
    assert.equal(new Set(rs.seen.map((s) => s.proof)).size, 3);
    // The token request's proof: for the token endpoint, with the public key only.
    const [request] = as.log.tokenRequests;
    assert.equal(request.get('grant_type'), 'authorization_code');
    assert.equal(as.tokens.get(tokens!.access_token)?.jkt !== undefined, true);
  });

  test('the nonces both servers ask for: each request sent once more, with the nonce', async () => {
    as.dpopNonce = 'as-nonce-1';
    rs.nonce = () => 'rs-nonce-1';
    const auth = signingIn();
    assert.equal(await call(auth), 'ok POST');
    assert.equal(as.log.tokenRequests.length, 2);
    // Refused once for want of the nonce, then let through; the next request carries it at once.
    assert.equal(await call(auth), 'ok POST');
    assert.deepEqual(
      rs.seen.map((s) => s.proof === 'nonce'),
      [true, false, false],
    );
  });

  test('a server that wants another nonce each time is sent a request twice, no more', async () => {
    const auth = signingIn();
    assert.equal(await call(auth), 'ok POST');
    let asked = 0;
    rs.nonce = () => `n-${++asked}`;
    const response = await auth.fetch(mcpUrl, { method: 'POST', body: '{}' });
    assert.equal(response.status, 401);
    assert.equal(asked, 2);
  });

  test('a resource that challenges with Bearer only gets Bearer tokens, though its authorization server offers DPoP', async () => {
    rs.challenge = 'Bearer';
    const auth = signingIn();
    assert.equal(await call(auth), 'ok POST');
    assert.equal((await auth.tokens())?.token_type, 'Bearer');
    assert.equal(rs.seen[0].scheme, 'Bearer');
  });

  test('a resource whose metadata requires DPoP-bound tokens, at a server that issues none: not authorized, saying why', async () => {
    rs.challenge = 'Bearer';
    rs.metadata = { dpop_bound_access_tokens_required: true };
    as.dpop = false;
    const response = signingIn().fetch(mcpUrl, { method: 'POST', body: '{}' });
    await assert.rejects(
      response,
      /takes only DPoP-bound tokens, and its authorization server .* issues none/,
    );
    assert.equal(as.log.authorizations.length, 0);
  });

  test('a token of a type the client did not ask for (DPoP without a proof, or another scheme) is refused', async () => {
    const metadata = {
      issuer: as.issuer,
      authorization_endpoint: `${as.issuer}/a`,
      token_endpoint: `${as.issuer}/t`,
    };
    for (const type of ['DPoP', 'MAC']) {
      const answering = async () => Response.json({ access_token: 'x', token_type: type });
      const request = requestTokens(answering, metadata, { client_id: 'c' }, undefined, {}, undefined, Date);
      await assert.rejects(request, new RegExp(`issued a ${type} token, which this client does not present`));
    }
  });

  test('the key is kept with the tokens: another run presents them and refreshes them with it', async () => {
    const store = { state: undefined as OAuthState | undefined };
    assert.equal(await call(signingIn(store)), 'ok POST');
    const key = store.state?.dpopKey;
    assert.equal(key?.alg, 'ES256');
    assert.equal(typeof key?.d, 'string');
    // A new process: no new sign-in, the same key's proofs.
    const later = signingIn(store);
    assert.equal(await call(later), 'ok POST');
    assert.equal(as.log.authorizations.length, 1);
    // The access token refused: the refresh token, bound to that key, is redeemed with a proof of it.
    as.tokens.clear();
    assert.equal(await call(later), 'ok POST');
    assert.equal(as.log.authorizations.length, 1);
    assert.deepEqual(
      as.log.tokenRequests.map((r) => r.get('grant_type')),
      ['authorization_code', 'refresh_token'],
    );
    assert.equal(store.state?.dpopKey, key);
    // A third run, whose access token has expired: refreshed before it is sent, with a proof of the kept key.
    store.state = { ...store.state!, tokens: { ...store.state!.tokens!, expires_at: Date.now() - 1 } };
    assert.equal(await call(signingIn(store)), 'ok POST');
    assert.equal(as.log.authorizations.length, 1);
    assert.equal(as.log.tokenRequests.at(-1)?.get('grant_type'), 'refresh_token');
    // Each proof, at either server, was of the kept key.
    const thumbprints = new Set([...as.tokens.values()].map((grant) => grant.jkt));
    assert.equal(thumbprints.size, 1);
    assert.equal(await calculateJwkThumbprint(key!), [...thumbprints][0]);
  });
});
