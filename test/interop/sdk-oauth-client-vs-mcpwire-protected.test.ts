// The official SDK's OAuth client (StreamableHTTPClientTransport with an authProvider) against a
// StreamableHTTPHandler guarded by mcpwire's ProtectedResource (requiring the scope mcp:tools): the SDK finds the authorization server from
// our 401 challenge and metadata, signs in, and its token is what our verifier sees.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  startAuthorizationServer,
  type TestAuthorizationServer,
} from '../../src/test-support/authorization-server.js';
import { type ProtectedDemo, serveProtectedDemo } from '../../src/test-support/protected-demo.js';
import { ApprovingProvider } from '../../src/test-support/sdk-oauth-provider.js';
import { toolText } from '../../src/test-support/tool-text.js';

describe('official SDK OAuth client ↔ mcpwire ProtectedResource', { timeout: 60_000 }, () => {
  let as: TestAuthorizationServer;
  let demo: ProtectedDemo;

  before(async () => {
    as = await startAuthorizationServer();
    demo = await serveProtectedDemo(as, ['mcp:tools']);
  });
  after(async () => {
    await demo.close();
    await as.close();
  });

  test('401, discovery through our challenge and metadata, sign-in, then the whole call with the token', async () => {
    const provider = new ApprovingProvider('sdk-interop');
    const client = new Client({ name: 'sdk-interop', version: '1.0.0' });
    const first = new StreamableHTTPClientTransport(new URL(demo.url), { authProvider: provider });
    await assert.rejects(client.connect(first), UnauthorizedError);
    assert.ok(provider.code, 'the SDK sent its user to our authorization server');
    await first.finishAuth(provider.code!);

    const transport = new StreamableHTTPClientTransport(new URL(demo.url), { authProvider: provider });
    await client.connect(transport);
    assert.equal(toolText(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })), '5');
    await client.close();

    // The SDK asked for the scope our challenge named, for the resource our metadata named.
    const [authorization] = as.log.authorizations;
    assert.equal(authorization.get('scope'), 'mcp:tools');
    assert.equal(authorization.get('resource'), demo.url);
    assert.equal(authorization.get('code_challenge_method'), 'S256');
  });
});
