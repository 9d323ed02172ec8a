// The issuer checks that stop a mix-up attack (RFC 9207, RFC 8414 §3.3; MCP 2026-07-28 "Authorization
// Response Validation"), through a whole sign-in against the test authorization server: a response or
// metadata that names another issuer, or none where one is promised, never gets a code redeemed.
import assert from 'node:assert/strict';
import { after, beforeEach, describe, test } from 'node:test';
import { startOAuthFixture } from '../../test-support/oauth-fixture.js';
import { toolText } from '../../test-support/tool-text.js';
import { OAuthError } from './oauth-error.js';

const fixture = await startOAuthFixture();
const { as, oauth, connect } = fixture;
after(() => fixture.close());
beforeEach(() => fixture.reset());

/** The transport's error carries the OAuthError as its cause; its message says why. */
function refusedFor(why: RegExp) {
  return (err: Error) => {
    assert.ok(err.cause instanceof OAuthError, `an OAuthError, not ${err.cause}`);
    assert.match(err.cause.message, why);
    return true;
  };
}

describe('the authorization response and the metadata must name the issuer', { timeout: 20_000 }, () => {
  test('a response with the issuer the server advertised is used', async () => {
    const session = await connect(oauth());
    assert.equal(toolText(await session.callTool('echo', { message: 'hi' })), 'Echo: hi');
    await session.close();
    assert.equal(as.log.tokenRequests.length, 1);
  });

  test('an iss equal to the issuer only after URL normalisation is another issuer: no code is redeemed', async () => {
    for (const iss of [`${as.issuer}/`, as.issuer.replace('http:', 'HTTP:'), as.issuer.replace(':', '%3A')]) {
      as.iss = iss;
      await assert.rejects(
        connect(oauth()),
        refusedFor(/names the issuer .* not "http:\/\/127\.0\.0\.1:\d+"/),
      );
    }
    assert.equal(as.log.authorizations.length, 3);
    assert.equal(as.log.tokenRequests.length, 0);
  });

  test("another server's iss is refused even where the server does not advertise iss", async () => {
    as.metadata = { authorization_response_iss_parameter_supported: false };
    as.iss = 'https://evil.example';
    await assert.rejects(connect(oauth()), refusedFor(/"https:\/\/evil\.example".*mix-up attack/));
    assert.equal(as.log.tokenRequests.length, 0);
  });

  test('a response without iss is refused where the server advertises it, and used where it does not', async () => {
    as.iss = undefined;
    await assert.rejects(connect(oauth()), refusedFor(/carries no iss, which .* says it sends/));
    assert.equal(as.log.tokenRequests.length, 0);

    as.metadata = { authorization_response_iss_parameter_supported: false };
    const session = await connect(oauth());
    await session.close();
    assert.equal(as.log.tokenRequests.length, 1);
  });

  test("an error response with another server's iss is not told: it may be anyone's", async () => {
    const auth = oauth({
      authorize: async (url) => {
        const state = url.searchParams.get('state')!;
        return `http://127.0.0.1:1/callback?state=${state}&iss=https://evil.example&error=access_denied&error_description=call+evil`;
      },
    });
    await assert.rejects(connect(auth), (err: Error) => {
      refusedFor(/names the issuer "https:\/\/evil\.example"/)(err);
      assert.doesNotMatch(String(err.cause), /access_denied|call evil/);
      return true;
    });
  });

  test('metadata that names another issuer than the one its URL was built from is not used at all', async () => {
    for (const issuer of [`${as.issuer}/`, 'https://honest.example']) {
      as.metadata = { issuer };
      await assert.rejects(
        connect(oauth()),
        refusedFor(
          /names the issuer .*, not "http:\/\/127\.0\.0\.1:\d+", which its well-known URL was built from/,
        ),
      );
    }
    assert.equal(as.log.registrations, 0);
    assert.equal(as.log.authorizations.length, 0);
  });
});
