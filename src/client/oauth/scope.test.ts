// offline_access as SEP-2207 has it: asked for where the authorization server lists it, so that a server that
// issues refresh tokens only on request issues one; never where it does not.
import assert from 'node:assert/strict';
import { after, beforeEach, describe, test } from 'node:test';
import { ProtectedResource } from '../../http/protected-resource.js';
import { startOAuthFixture } from '../../test-support/oauth-fixture.js';
import type { AuthorizationServerMetadata } from './metadata.js';
import { requestScope } from './scope.js';

const fixture = await startOAuthFixture();
const { as, serverUrl, oauth, connect } = fixture;
after(() => fixture.close());
beforeEach(() => fixture.reset());

const listing = (scopes?: string[]) => ({ scopes_supported: scopes }) as AuthorizationServerMetadata;

describe('offline_access', { timeout: 20_000 }, () => {
  test("is asked for beside the resource's scopes where the authorization server lists it", async () => {
    as.metadata = { scopes_supported: ['mcp:tools', 'offline_access'] };
    await (await connect(oauth())).close();
    assert.equal(as.log.authorizations[0].get('scope'), 'mcp:tools offline_access');
  });

  test('is not asked for where the authorization server does not list it, even if the resource does', async () => {
    as.metadata = { scopes_supported: ['mcp:tools'] };
    fixture.metadata = new ProtectedResource({
      resource: serverUrl,
      authorizationServers: [as.issuer],
      scopesSupported: ['mcp:tools', 'offline_access'],
      verifier: { verify: () => undefined },
    });
    await (await connect(oauth())).close();
    assert.equal(as.log.authorizations[0].get('scope'), 'mcp:tools');
  });

  test('is not asked for alone: without resource scopes the scope stays out, for the server default', () => {
    assert.equal(requestScope(undefined, listing(['offline_access'])), undefined);
    assert.equal(requestScope('offline_access', listing(['offline_access'])), undefined);
    assert.equal(requestScope('a b a offline_access', listing(['offline_access'])), 'a b offline_access');
    assert.equal(requestScope('a offline_access', listing(undefined)), 'a');
  });
});
