// ProtectedResource with DPoP-bound tokens (RFC 9449): mcpwire's own client signs in to a StreamableHTTPHandler whose
// tokens the test authorization server binds to the client's key, checked by introspection (the `cnf` it answers);
// then the refusals a thief meets: the token as Bearer, a proof replayed, a proof for another request or token.
import assert from 'node:assert/strict';
import { after, beforeEach, describe, test } from 'node:test';
import { Client } from '../client/client.js';
import { connectUrl } from '../client/negotiation/connect-url.js';
import { DPoPProver } from '../client/oauth/dpop.js';
import { OAuthClient } from '../client/oauth/oauth-client.js';
import { createDemoServer } from '../demo/demo-server.js';
import { StreamableHTTPHandler } from '../server/http/streamable-http-handler.js';
import { startAuthorizationServer } from '../test-support/authorization-server.js';
import { serveOn } from '../test-support/mcp-http.js';
import { toolText } from '../test-support/tool-text.js';
import { introspectionVerifier } from './introspection-verifier.js';
import { ProtectedResource } from './protected-resource.js';

const as = await startAuthorizationServer();
let resource: ProtectedResource;
const sent: { authorization: string; dpop: string | undefined }[] = [];
const served = await serveOn((req, res) => {
  if (req.url === resource.metadataPath) return resource.node()(req, res);
  sent.push({
    authorization: req.headers.authorization ?? '-',
    dpop: req.headers.dpop as string | undefined,
  });
  handler.node()(req, res);
});
const verifier = introspectionVerifier({
  endpoint: `${as.issuer}/introspect`,
  clientId: 'resource-server',
  clientSecret: 'rs-secret',
  resource: served.url,
  cacheMs: 0,
});
const protect = (dpop: 'accept' | 'require' | undefined) => {
  resource = new ProtectedResource({
    resource: served.url,
    authorizationServers: [as.issuer],
    scopesSupported: ['mcp:tools'],
    verifier,
    dpop,
  });
  handler = new StreamableHTTPHandler(createDemoServer(), { auth: resource });
};
let handler: StreamableHTTPHandler;
protect('accept');
after(() => Promise.all([served.close(), as.close()]));
beforeEach(() => {
  as.reset();
  as.dpop = true;
  sent.length = 0;
  protect('accept');
});

function signingIn(): OAuthClient {
  return new OAuthClient({
    redirectUri: 'http://127.0.0.1:1/callback',
    authorize: async (url) => (await fetch(url, { redirect: 'manual' })).headers.get('location')!,
  });
}

async function echoWith(auth: OAuthClient): Promise<string> {
  const client = new Client({ name: 'dpop-test', version: '1' }, { requestTimeoutMs: 10_000 });
  const session = await connectUrl(client, served.url, { fetch: auth.fetch });
  try {
    return toolText(await session.callTool('echo', { message: 'bound' }));
  } finally {
    await session.close();
  }
}

/** The message of a refusal's JSON-RPC error body. */
const messageOf = async (response: Response) =>
  ((await response.json()) as { error: { message: string } }).error.message;

const post = (headers: Record<string, string>) =>
  fetch(served.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });

describe('ProtectedResource, DPoP', { timeout: 30_000 }, () => {
  test('the metadata and the challenge offer DPoP; a client signs in and every request carries a proof', async () => {
    const metadata = (await (await fetch(new URL(resource.metadataPath, served.url))).json()) as Record<
      string,
      unknown
    >;
    assert.deepEqual(metadata.dpop_signing_alg_values_supported, [
      'ES256',
      'ES384',
      'EdDSA',
      'PS256',
      'RS256',
    ]);
    const refused = await post({});
    assert.match(
      refused.headers.get('www-authenticate')!,
      /^Bearer resource_metadata="[^"]+", DPoP algs="ES256 /,
    );

    const auth = signingIn();
    assert.equal(await echoWith(auth), 'Echo: bound');
    assert.equal((await auth.tokens())?.token_type, 'DPoP');
    const withToken = sent.filter((s) => s.authorization !== '-');
    assert.ok(withToken.length >= 3, String(withToken.length));
    assert.ok(withToken.every((s) => s.authorization.startsWith('DPoP ') && s.dpop !== undefined));
    assert.equal(new Set(withToken.map((s) => s.dpop)).size, withToken.length);
  });

  test("a thief's uses: the bound token as Bearer, a proof replayed, a proof for another token: 401 each, saying why", async () => {
    const auth = signingIn();
    await echoWith(auth);
    const token = (await auth.tokens())!.access_token;
    const { authorization, dpop } = sent.at(-1)!;

    const asBearer = await post({ authorization: `Bearer ${token}` });
    assert.equal(asBearer.status, 401);
    assert.match(await messageOf(asBearer), /bound to a key: present it as Authorization: DPoP/);

    const replayed = await post({ authorization, dpop: dpop! });
    assert.equal(replayed.status, 401);
    assert.match(replayed.headers.get('www-authenticate')!, /DPoP algs="[^"]+", error="invalid_dpop_proof"/);
    assert.match(await messageOf(replayed), /the proof was used before/);

    // A proof of the right key, made for another request (a GET, then another token).
    const fresh = sent.find((s) => s.authorization.startsWith('DPoP'))!;
    const noProof = await post({ authorization: fresh.authorization });
    assert.match(await messageOf(noProof), /no DPoP proof/);
    const otherToken = await post({ authorization: `DPoP ${token}x`, dpop: dpop! });
    assert.match(await messageOf(otherToken), /does not hold/);
  });

  test("'require': unbound tokens and the Bearer scheme are refused, and the metadata says DPoP is required", async () => {
    protect('require');
    const metadata = (await (await fetch(new URL(resource.metadataPath, served.url))).json()) as Record<
      string,
      unknown
    >;
    assert.equal(metadata.dpop_bound_access_tokens_required, true);
    const refused = await post({});
    assert.match(refused.headers.get('www-authenticate')!, /^DPoP algs="/);
    assert.match(await messageOf(refused), /Authorization: DPoP …/);
    // An authorization server that binds nothing: the client does not even ask it for a token.
    as.dpop = false;
    await assert.rejects(echoWith(signingIn()), /takes only DPoP-bound tokens, and its authorization server/);
    // An unbound token is no good here, whichever scheme.
    as.tokens.set('token-plain', { scopes: ['mcp:tools'], resource: served.url });
    const asBearer = await post({ authorization: 'Bearer token-plain' });
    assert.equal(asBearer.status, 401);
    assert.match(
      await messageOf(asBearer),
      /takes only DPoP-bound tokens: present one as Authorization: DPoP/,
    );
    const asDPoP = await post({ authorization: 'DPoP token-plain', dpop: 'x' });
    assert.match(await messageOf(asDPoP), /the DPoP proof does not hold: the proof is not a JWT/);
    const prover = (await DPoPProver.create(['ES256'], undefined))!;
    const proven = await post({
      authorization: 'DPoP token-plain',
      dpop: await prover.proof('POST', served.url, 'token-plain'),
    });
    assert.match(await messageOf(proven), /the access token is not bound to a key/);
    // A bound one goes through.
    as.dpop = true;
    assert.equal(await echoWith(signingIn()), 'Echo: bound');
  });

  test('without DPoP, an unbound token is taken as Bearer, and a bound one is refused all the same', async () => {
    protect(undefined);
    as.dpop = false;
    assert.equal(await echoWith(signingIn()), 'Echo: bound');
    const refused = await post({});
    assert.equal(refused.headers.get('www-authenticate')?.includes('DPoP'), false);
    // A token bound elsewhere (the authorization server binds it; this resource never said it takes DPoP).
    as.dpop = true;
    const grantId = `token-bound`;
    as.tokens.set(grantId, { scopes: ['mcp:tools'], resource: served.url, jkt: 'some-thumbprint' });
    const stolen = await post({ authorization: `Bearer ${grantId}` });
    assert.equal(stolen.status, 401);
    assert.match(await messageOf(stolen), /bound to a key/);
  });
});
