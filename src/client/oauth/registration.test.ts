// Who the client is at the authorization server: dynamic registration with an application_type (SEP-837),
// an actionable error when the server refuses it, and credentials and tokens bound to the server that
// issued them, so that a resource moving to another server means registering there (SEP-2352).
import assert from 'node:assert/strict';
import { after, beforeEach, describe, test } from 'node:test';
import { startAuthorizationServer } from '../../test-support/authorization-server.js';
import { startOAuthFixture } from '../../test-support/oauth-fixture.js';
import { toolText } from '../../test-support/tool-text.js';
import type { OAuthState } from './oauth-client.js';
import { OAuthError } from './oauth-error.js';
import { applicationTypeOf } from './registration.js';

const fixture = await startOAuthFixture();
const { as, oauth, connect } = fixture;
const other = await startAuthorizationServer('b-');
after(() => Promise.all([fixture.close(), other.close()]));
beforeEach(() => {
  fixture.reset();
  other.reset();
});

function memoryStore() {
  const store = {
    kept: undefined as OAuthState | undefined,
    load: () => store.kept,
    save: (state: OAuthState) => {
      store.kept = state;
    },
  };
  return store;
}

describe('client registration', { timeout: 20_000 }, () => {
  test('registration names the application type: native for a loopback redirect, else as configured', async () => {
    await (await connect(oauth())).close();
    await (await connect(oauth({ applicationType: 'web' }))).close();
    assert.deepEqual(
      as.log.registrationRequests.map((r) => [r.application_type, r.grant_types]),
      [
        ['native', ['authorization_code', 'refresh_token']],
        ['web', ['authorization_code', 'refresh_token']],
      ],
    );
  });

  test('the application type follows the redirect URI: a loopback or app scheme is native, another host web', () => {
    for (const uri of [
      'http://127.0.0.1:8976/callback',
      'http://localhost/cb',
      'http://[::1]:3000/cb',
      'com.example.app:/oauth',
    ]) {
      assert.equal(applicationTypeOf(uri), 'native', uri);
    }
    assert.equal(applicationTypeOf('https://app.example.com/callback'), 'web');
  });

  test('a refused registration says what the server answered and what to change', async () => {
    as.registrationError = { error: 'invalid_redirect_uri', error_description: 'native clients only' };
    await assert.rejects(connect(oauth()), (err: Error) => {
      const cause = err.cause as OAuthError;
      assert.ok(cause instanceof OAuthError);
      assert.equal(cause.error, 'invalid_redirect_uri');
      assert.match(cause.message, /HTTP 400 invalid_redirect_uri: native clients only/);
      assert.match(cause.message, /application_type "native" .* give the OAuthClient the applicationType/);
      return true;
    });
    assert.equal(as.log.authorizations.length, 0);
  });
});

describe('a resource that moves to another authorization server', { timeout: 20_000 }, () => {
  test('the client registers there, and nothing of the first server reaches it', async () => {
    const store = memoryStore();
    const session = await connect(oauth({ store }));
    assert.equal(toolText(await session.callTool('echo', { message: 'before' })), 'Echo: before');
    const asked = as.log.tokenRequests.length;

    fixture.moveTo(other);
    assert.equal(toolText(await session.callTool('echo', { message: 'after' })), 'Echo: after');
    await session.close();

    assert.equal(other.log.registrations, 1);
    assert.equal(other.log.authorizations[0].get('client_id'), 'b-registered');
    assert.deepEqual(
      other.log.tokenRequests.map((r) => r.get('grant_type')),
      ['authorization_code'],
    );
    // The client authenticated as the new server's client, never as the first one's.
    assert.deepEqual(
      other.log.tokenRequests.map((r) => Buffer.from(r.get('authorization')!.slice(6), 'base64').toString()),
      ['b-registered:s3cret'],
    );
    // The first server's refresh token was not tried, at it or at the new one.
    assert.equal(as.log.tokenRequests.length, asked);
    assert.equal(store.kept?.client?.issuer, other.issuer);
    assert.equal(store.kept?.tokens?.issuer, other.issuer);
  });

  test("a new process with the first server's tokens stored does not send their refresh token to the new one", async () => {
    const store = memoryStore();
    await (await connect(oauth({ store }))).close();
    assert.match(store.kept?.tokens?.refresh_token ?? '', /^refresh-\d+$/);

    fixture.moveTo(other);
    const session = await connect(oauth({ store }));
    await session.close();
    assert.deepEqual(
      other.log.tokenRequests.map((r) => r.get('grant_type')),
      ['authorization_code'],
    );
    assert.ok(other.log.tokenRequests.every((r) => r.get('refresh_token') === null));
    assert.equal(as.log.tokenRequests.length, 1);
  });

  test('pre-registered credentials for the first server are not used at the new one: the error says so', async () => {
    const session = await connect(
      oauth({ client: { client_id: 'mine', client_secret: 'pw', issuer: as.issuer } }),
    );
    fixture.moveTo(other);
    await assert.rejects(session.callTool('echo', { message: 'after' }), (err: Error) => {
      const cause = err.cause as OAuthError;
      assert.ok(cause instanceof OAuthError, String(err));
      assert.match(
        cause.message,
        /is now http:\/\/127\.0\.0\.1:\d+, but the pre-registered client mine is registered with/,
      );
      return true;
    });
    await session.close();
    assert.equal(other.log.authorizations.length, 0);
    assert.equal(other.log.tokenRequests.length, 0);
  });
});
