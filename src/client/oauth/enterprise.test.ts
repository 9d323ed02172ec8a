// Enterprise-managed authorization (SEP-990): the OAuthClient trades the person's ID token for a grant at their
// identity provider, then the grant for a token at the MCP server's authorization server. Against a test identity
// provider, the test authorization server and mcpwire's protected endpoint, on loopback. The official suite's
// auth/enterprise-managed-authorization runs the same flow against its own mocks (scripts/conformance-client*.sh).
import assert from 'node:assert/strict';
import { after, beforeEach, describe, test } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { startIdentityProvider } from '../../test-support/identity-provider.js';
import { startOAuthFixture } from '../../test-support/oauth-fixture.js';
import { toolText } from '../../test-support/tool-text.js';
import { OAuthClient } from './oauth-client.js';
import type { IdentityProvider } from './oauth-client-options.js';

const fixture = await startOAuthFixture();
const idp = await startIdentityProvider();
const { as, serverUrl, connect } = fixture;
after(() => Promise.all([fixture.close(), idp.close()]));
beforeEach(() => {
  fixture.reset();
  as.identityProviderKey = idp.publicKey;
  idp.exchanges.length = 0;
  idp.refusal = undefined;
  idp.issuedTokenType = 'urn:ietf:params:oauth:token-type:id-jag';
});

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

function enterprise(identityProvider: Partial<IdentityProvider> = {}): OAuthClient {
  return new OAuthClient({
    grant: 'enterprise',
    client: { client_id: 'robot', client_secret: 'robot-secret' },
    identityProvider: {
      issuer: idp.issuer,
      client: { client_id: 'app', client_secret: 'app-secret' },
      idToken: () => idp.idToken('ada'),
      ...identityProvider,
    },
  });
}

describe('OAuthClient, enterprise-managed', { timeout: 20_000 }, () => {
  test("the person's ID token becomes a grant at their identity provider, the grant a token: no sign-in, no registration", async () => {
    const idTokens: string[] = [];
    const auth = enterprise({
      idToken: async () => {
        idTokens.push(await idp.idToken('ada'));
        return idTokens.at(-1)!;
      },
    });
    const session = await connect(auth);
    assert.equal(toolText(await session.callTool('echo', { message: 'sso' })), 'Echo: sso');
    await session.close();
    assert.equal(as.log.authorizations.length + as.log.registrations, 0);

    const [exchange] = idp.exchanges;
    assert.equal(exchange.get('grant_type'), TOKEN_EXCHANGE);
    assert.equal(exchange.get('requested_token_type'), 'urn:ietf:params:oauth:token-type:id-jag');
    assert.equal(exchange.get('subject_token'), idTokens[0]);
    assert.equal(exchange.get('subject_token_type'), 'urn:ietf:params:oauth:token-type:id_token');
    // For the authorization server the resource names, the resource and the scope it supports.
    assert.equal(exchange.get('audience'), as.issuer);
    assert.equal(exchange.get('resource'), serverUrl);
    assert.equal(exchange.get('scope'), 'mcp:tools');
    // The client authenticates at each server as registered there.
    assert.equal(exchange.get('authorization'), `Basic ${Buffer.from('app:app-secret').toString('base64')}`);
    const [request] = as.log.tokenRequests;
    assert.equal(request.get('grant_type'), JWT_BEARER);
    assert.equal(
      request.get('authorization'),
      `Basic ${Buffer.from('robot:robot-secret').toString('base64')}`,
    );
    assert.equal(request.get('resource'), serverUrl);
    const grant = request.get('assertion')!;
    assert.equal(decodeProtectedHeader(grant).typ, 'oauth-id-jag+jwt');
    assert.equal(decodeJwt(grant).sub, 'ada');

    // Refused later: a new grant, from the ID token asked for again.
    as.tokens.clear();
    const again = await connect(auth);
    assert.equal(toolText(await again.callTool('echo', { message: 'sso' })), 'Echo: sso');
    await again.close();
    assert.equal(idTokens.length, 2);
    assert.deepEqual(
      idp.exchanges.map((e) => e.get('subject_token')),
      idTokens,
    );
    assert.deepEqual(
      as.log.tokenRequests.map((r) => r.get('grant_type')),
      [JWT_BEARER, JWT_BEARER],
    );
  });

  test("the identity provider's refusal fails the request, naming the provider's error; nothing reaches the authorization server", async () => {
    idp.refusal = { error: 'access_denied', error_description: 'this app may not reach that server' };
    await assert.rejects(connect(enterprise()), (err: Error) => {
      const message = String(err.cause ?? err);
      assert.match(message, /access_denied: this app may not reach that server/);
      assert.match(message, new RegExp(`${idp.issuer}/token`));
      return true;
    });
    assert.equal(as.log.tokenRequests.length, 0);
  });

  test('an expired ID token: the provider refuses it (invalid_grant) and the error says so', async () => {
    await assert.rejects(connect(enterprise({ idToken: () => idp.idToken('ada', '-1m') })), (err: Error) => {
      assert.match(String(err.cause ?? err), /invalid_grant: the ID token is not good here/);
      return true;
    });
    assert.equal(as.log.tokenRequests.length, 0);
  });

  test('an answer that is not an identity assertion grant is not presented anywhere', async () => {
    idp.issuedTokenType = 'urn:ietf:params:oauth:token-type:access_token';
    await assert.rejects(connect(enterprise()), (err: Error) => {
      assert.match(String(err.cause ?? err), /answered no identity assertion grant .*access_token/);
      return true;
    });
    assert.equal(as.log.tokenRequests.length, 0);
  });

  test('an identity provider on plain http (not loopback) gets no ID token', async () => {
    let asked = 0;
    const auth = enterprise({
      issuer: 'http://idp.example',
      idToken: () => {
        asked++;
        return idp.idToken('ada');
      },
    });
    await assert.rejects(connect(auth), (err: Error) => {
      assert.match(String(err.cause ?? err), /http:\/\/idp\.example is not https/);
      return true;
    });
    assert.equal(asked, 0);
    assert.equal(idp.exchanges.length, 0);
  });

  test('a grant the authorization server does not trust: invalid_grant, after one exchange and one token request', async () => {
    as.identityProviderKey = undefined;
    await assert.rejects(connect(enterprise()), (err: Error) => {
      assert.match(String(err.cause ?? err), /invalid_grant/);
      return true;
    });
    assert.equal(idp.exchanges.length, 1);
    assert.equal(as.log.tokenRequests.length, 1);
  });
});
