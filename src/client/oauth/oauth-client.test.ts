// OAuthClient against a test authorization server and mcpwire's own protected StreamableHTTPHandler, on
// loopback. The official conformance suite checks the flow against its mocks (scripts/conformance-client.sh);
// these tests pin what it does not: one refresh for concurrent refusals, the store, and the refusals that keep
// a token from going where it must not.
import assert from 'node:assert/strict';
import { after, beforeEach, describe, test } from 'node:test';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { ProtectedResource } from '../../http/protected-resource.js';
import { listenLoopback } from '../../test-support/http-loopback.js';
import { startOAuthFixture } from '../../test-support/oauth-fixture.js';
import { until } from '../../test-support/time-limit.js';
import { toolText } from '../../test-support/tool-text.js';
import { OAuthClient, type OAuthState } from './oauth-client.js';
import { OAuthError } from './oauth-error.js';

const fixture = await startOAuthFixture();
const { as, serverUrl, mcpAuthorization, oauth, connect } = fixture;
after(() => fixture.close());
beforeEach(() => fixture.reset());

describe('OAuthClient', { timeout: 20_000 }, () => {
  test('a 401 leads to discovery, registration, PKCE authorization for the resource, and the call goes through', async () => {
    const auth = oauth();
    const session = await connect(auth);
    assert.equal(toolText(await session.callTool('echo', { message: 'hi' })), 'Echo: hi');
    await session.close();

    assert.equal(as.log.registrations, 1);
    assert.equal(as.log.authorizations.length, 1);
    const query = as.log.authorizations[0];
    assert.equal(query.get('response_type'), 'code');
    assert.equal(query.get('client_id'), 'registered');
    assert.equal(query.get('code_challenge_method'), 'S256');
    assert.equal(query.get('resource'), serverUrl);
    // No scope in the challenge: all the resource supports.
    assert.equal(query.get('scope'), 'mcp:tools');
    const [tokenRequest] = as.log.tokenRequests;
    assert.equal(tokenRequest.get('resource'), serverUrl);
    assert.equal(
      tokenRequest.get('authorization'),
      `Basic ${Buffer.from('registered:s3cret').toString('base64')}`,
    );
    // The first request went without a token; every one after it carried the one issued.
    const token = (await auth.tokens())?.access_token;
    assert.equal(mcpAuthorization[0], 'POST -');
    assert.ok(
      mcpAuthorization.slice(1).every((a) => a.endsWith(` Bearer ${token}`)),
      String(mcpAuthorization),
    );
  });

  test('client credentials: a machine client gets its token from the token endpoint, no one signs in', async () => {
    const auth = new OAuthClient({
      grant: 'client_credentials',
      client: { client_id: 'robot', client_secret: 'robot-secret' },
    });
    const session = await connect(auth);
    assert.equal(toolText(await session.callTool('echo', { message: 'beep' })), 'Echo: beep');
    await session.close();
    assert.equal(as.log.authorizations.length, 0);
    assert.equal(as.log.registrations, 0);
    const [request] = as.log.tokenRequests;
    assert.equal(request.get('grant_type'), 'client_credentials');
    assert.equal(request.get('resource'), serverUrl);
    assert.equal(request.get('scope'), 'mcp:tools');
    assert.equal(
      request.get('authorization'),
      `Basic ${Buffer.from('robot:robot-secret').toString('base64')}`,
    );
    // Refused later (no refresh token to use): it asks for a token again the same way.
    as.tokens.clear();
    const again = await connect(auth);
    assert.equal(toolText(await again.callTool('echo', { message: 'beep' })), 'Echo: beep');
    await again.close();
    assert.deepEqual(
      as.log.tokenRequests.map((r) => r.get('grant_type')),
      ['client_credentials', 'client_credentials'],
    );
  });

  test('client credentials the authorization server refuses: an OAuthError saying so', async () => {
    const auth = new OAuthClient({
      grant: 'client_credentials',
      client: { client_id: 'robot', client_secret: 'wrong' },
    });
    await assert.rejects(connect(auth), (err: Error) => {
      assert.match(String(err.cause ?? err), /invalid_client/);
      return true;
    });
  });

  test('a workload: its identity token, asked anew for each token, for the JWT-bearer grant; no secret, no sign-in', async () => {
    const idp = await generateKeyPair('ES256');
    as.workloadKey = { ...(await exportJWK(idp.publicKey)), alg: 'ES256' };
    const asked: string[] = [];
    /** What the workload's platform hands it: a short-lived token for the authorization server it is asked for. */
    const identity = (audience: string, expires = '5m') =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer('https://idp.example')
        .setSubject('workload-7')
        .setAudience(audience)
        .setExpirationTime(expires)
        .sign(idp.privateKey);
    const auth = new OAuthClient({
      grant: 'jwt_bearer',
      client: { client_id: 'workload' },
      assertion: (issuer) => {
        asked.push(issuer);
        return identity(issuer);
      },
    });
    const session = await connect(auth);
    assert.equal(toolText(await session.callTool('echo', { message: 'job' })), 'Echo: job');
    await session.close();
    // Refused later: a token again, from a token asked for again.
    as.tokens.clear();
    const again = await connect(auth);
    assert.equal(toolText(await again.callTool('echo', { message: 'job' })), 'Echo: job');
    await again.close();
    assert.deepEqual(asked, [as.issuer, as.issuer]);
    assert.equal(as.log.authorizations.length + as.log.registrations, 0);
    const requests = as.log.tokenRequests;
    assert.deepEqual(
      requests.map((r) => [
        r.get('grant_type'),
        r.get('client_id'),
        r.get('resource'),
        r.get('authorization'),
      ]),
      [0, 1].map(() => ['urn:ietf:params:oauth:grant-type:jwt-bearer', 'workload', serverUrl, '']),
    );
    assert.notEqual(requests[0].get('assertion'), requests[1].get('assertion'));

    // A token for another server is refused (invalid_grant): the request fails saying so, with no other grant tried.
    as.reset();
    as.workloadKey = { ...(await exportJWK(idp.publicKey)), alg: 'ES256' };
    const misdirected = new OAuthClient({
      grant: 'jwt_bearer',
      client: { client_id: 'workload' },
      assertion: () => identity('https://elsewhere.example'),
    });
    await assert.rejects(connect(misdirected), (err: Error) => {
      assert.match(String(err.cause ?? err), /invalid_grant/);
      return true;
    });
    assert.deepEqual(
      as.log.tokenRequests.map((r) => r.get('grant_type')),
      ['urn:ietf:params:oauth:grant-type:jwt-bearer'],
    );
  });

  test('client credentials with private_key_jwt: a signed assertion for the issuer, once each, no secret', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    as.clientKeys.set('robot-jwt', { ...(await exportJWK(publicKey)), alg: 'ES256' });
    const key = { ...(await exportJWK(privateKey)), alg: 'ES256', kid: 'k1' };
    const auth = new OAuthClient({
      grant: 'client_credentials',
      client: { client_id: 'robot-jwt', privateKey: key },
    });
    const session = await connect(auth);
    assert.equal(toolText(await session.callTool('echo', { message: 'signed' })), 'Echo: signed');
    await session.close();
    const [request] = as.log.tokenRequests;
    assert.equal(request.get('authorization'), '');
    assert.equal(request.get('client_id'), 'robot-jwt');
    assert.equal(
      request.get('client_assertion_type'),
      'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    );
    assert.equal(decodeProtectedHeader(request.get('client_assertion')!).kid, 'k1');
    const claims = decodeJwt(request.get('client_assertion')!);
    assert.deepEqual([claims.iss, claims.sub, claims.aud], ['robot-jwt', 'robot-jwt', as.issuer]);
    assert.ok(claims.exp! - claims.iat! <= 60);
    // Another client's key does not pass: the server refuses, and the client says so.
    const { privateKey: stranger } = await generateKeyPair('ES256', { extractable: true });
    const forged = new OAuthClient({
      grant: 'client_credentials',
      client: { client_id: 'robot-jwt', privateKey: { ...(await exportJWK(stranger)), alg: 'ES256' } },
    });
    await assert.rejects(connect(forged), (err: Error) => {
      assert.match(String(err.cause ?? err), /invalid_client/);
      return true;
    });
  });

  test('a token refused later is refreshed once, however many requests were refused at once', async () => {
    const auth = oauth();
    const session = await connect(auth);
    const first = (await auth.tokens())?.access_token;
    as.tokens.delete(first!);
    const results = await Promise.all(
      [1, 2, 3].map((i) => session.callTool('echo', { message: `m${i}` }).then(toolText)),
    );
    assert.deepEqual(results, ['Echo: m1', 'Echo: m2', 'Echo: m3']);
    assert.deepEqual(
      as.log.tokenRequests.map((r) => r.get('grant_type')),
      ['authorization_code', 'refresh_token'],
    );
    assert.equal(as.log.authorizations.length, 1);
    const now = (await auth.tokens())?.access_token;
    assert.ok(now !== first && as.tokens.has(now!), `${first} was replaced by a token the server accepts`);
    await session.close();
  });

  test('a token about to expire is refreshed before it is sent, not after the server refuses it', async () => {
    let now = 1_000_000;
    const auth = oauth({ clock: { now: () => now } });
    const session = await connect(auth);
    // The standalone GET stream is open: nothing else is on its way.
    await until(() => mcpAuthorization.some((a) => a.startsWith('GET')), 5000, 'the GET stream');
    const issued = as.log.tokenRequests.length;
    // An hour later, 5 s before the token expires.
    now += 3_595_000;
    mcpAuthorization.length = 0;
    assert.equal(toolText(await session.callTool('echo', { message: 'fresh' })), 'Echo: fresh');
    assert.deepEqual(
      as.log.tokenRequests.slice(issued).map((r) => r.get('grant_type')),
      ['refresh_token'],
    );
    // Every request since (tools/list, then the call) went once, with the refreshed token.
    const token = (await auth.tokens())?.access_token;
    assert.deepEqual(mcpAuthorization, [`POST Bearer ${token}`, `POST Bearer ${token}`]);
    await session.close();
  });

  test('a store keeps the registration and the tokens for the next process', async () => {
    let kept: OAuthState | undefined;
    const store = {
      load: () => kept,
      save: (state: OAuthState) => {
        kept = state;
      },
    };
    const first = await connect(oauth({ store }));
    await first.close();
    const second = await connect(oauth({ store }));
    assert.equal(toolText(await second.callTool('echo', { message: 'again' })), 'Echo: again');
    await second.close();
    assert.equal(as.log.registrations, 1);
    assert.equal(as.log.authorizations.length, 1);
  });

  test('a user agent sent back with another state is not trusted: no code is redeemed', async () => {
    const auth = oauth({ authorize: async () => 'http://127.0.0.1:1/callback?code=stolen&state=other' });
    await assert.rejects(connect(auth), /does not carry the state of the request/);
    assert.equal(as.log.tokenRequests.length, 0);
  });

  test('metadata for another resource stops before any authorization', async () => {
    fixture.metadata = new ProtectedResource({
      resource: 'https://elsewhere.example/mcp',
      authorizationServers: [as.issuer],
      verifier: { verify: () => undefined },
    });
    await assert.rejects(connect(oauth()), (err: Error) => {
      assert.match(err.message, /is for https:\/\/elsewhere\.example\/mcp, which .* is not part of/);
      assert.ok(err.cause instanceof OAuthError, 'the transport passes the OAuthError on as the cause');
      return true;
    });
    assert.equal(as.log.authorizations.length, 0);
  });

  test('an authorization server that answers nothing fails the authorization within timeoutMs, each time it is tried', async () => {
    // Answers nothing; closing the server ends what it holds.
    let asked = 0;
    const silent = await listenLoopback(() => {
      asked++;
    });
    try {
      as.metadata = { token_endpoint: `http://127.0.0.1:${silent.port}/token` };
      const auth = oauth({ timeoutMs: 300 });
      // The second connect authorizes afresh: it does not wait on the first authorization.
      for (const attempt of [1, 2]) {
        await assert.rejects(connect(auth), (err: Error) => {
          const oauthError = err instanceof OAuthError ? err : err.cause;
          assert.ok(oauthError instanceof OAuthError, `${attempt}: ${err}`);
          assert.match(
            oauthError.message,
            /The token request to http:\/\/127\.0\.0\.1:\d+\/token failed: no answer within 300 ms \(the OAuthClient's timeoutMs\)$/,
          );
          return true;
        });
      }
      assert.equal(asked, 2);
    } finally {
      await silent.close();
    }
  });

  test('an authorization server without PKCE S256 is not used', async () => {
    as.metadata = { code_challenge_methods_supported: ['plain'] };
    await assert.rejects(connect(oauth()), /does not offer PKCE with S256/);
    assert.equal(as.log.authorizations.length, 0);
  });

  test('pre-registered credentials are used as they are; no registration', async () => {
    const session = await connect(oauth({ client: { client_id: 'mine', client_secret: 'p@ss:word' } }));
    await session.close();
    assert.equal(as.log.registrations, 0);
    assert.equal(as.log.authorizations[0].get('client_id'), 'mine');
    // RFC 6749 §2.3.1: the parts are form-encoded before they are joined.
    assert.equal(
      as.log.tokenRequests[0].get('authorization'),
      `Basic ${Buffer.from('mine:p%40ss%3Aword').toString('base64')}`,
    );
  });
});
