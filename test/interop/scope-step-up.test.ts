// Step-up authorization (spec 2025-11-25, authorization: scope challenge) against a server whose tool `wipe`
// needs the scope `admin`: the client signs in with what the resource asks of everyone, is answered 403
// `insufficient_scope` when it calls `wipe` (the fixtures' tokens are ada's, who also sees `diary`), authorizes again asking for both scopes, and the call goes through.
// With mcpwire's OAuthClient in both eras, `mcpwire call` as a machine client (client credentials), and the
// official SDK v1 client's OAuth provider.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { exportJWK, generateKeyPair } from 'jose';
import { Client, connectUrl } from '../../src/client/index.js';
import {
  startAuthorizationServer,
  type TestAuthorizationServer,
} from '../../src/test-support/authorization-server.js';
import { runCli } from '../../src/test-support/cli-run.js';
import { guardedServer } from '../../src/test-support/guarded-server.js';
import { type OAuthFixture, startOAuthFixture } from '../../src/test-support/oauth-fixture.js';
import { type ProtectedDemo, serveProtectedDemo } from '../../src/test-support/protected-demo.js';
import { ApprovingProvider } from '../../src/test-support/sdk-oauth-provider.js';
import { toolText } from '../../src/test-support/tool-text.js';

describe("mcpwire's client steps up", { timeout: 30_000 }, () => {
  let fixture: OAuthFixture;
  before(async () => {
    fixture = await startOAuthFixture(guardedServer());
  });
  after(() => fixture.close());
  beforeEach(() => fixture.reset());

  for (const era of ['legacy', 'modern'] as const) {
    test(`${era}: 403 insufficient_scope, one authorization asking for both scopes, the call retried once`, async () => {
      const auth = fixture.oauth();
      const client = new Client({ name: 'step-up', version: '1' }, { era, requestTimeoutMs: 10_000 });
      const session = await connectUrl(client, fixture.serverUrl, { fetch: auth.fetch, transport: 'http' });
      try {
        assert.deepEqual(
          (await session.listTools()).tools.map((t) => t.name),
          ['echo', 'diary'],
        );
        assert.equal(toolText(await session.callTool('wipe')), 'wiped');
        const scopes = fixture.as.log.authorizations.map((query) => query.get('scope'));
        assert.deepEqual(scopes, ['mcp:tools', 'mcp:tools admin']);
        // With the wider token, the list holds what it now may use.
        assert.deepEqual(
          (await session.listTools()).tools.map((t) => t.name),
          ['echo', 'wipe', 'diary'],
        );
      } finally {
        await session.close();
      }
    });
  }
});

describe('the official SDK v1 client steps up', { timeout: 30_000 }, () => {
  let as: TestAuthorizationServer;
  let served: ProtectedDemo;

  before(async () => {
    as = await startAuthorizationServer();
    served = await serveProtectedDemo(as, ['mcp'], guardedServer());
  });
  after(async () => {
    await served.close();
    await as.close();
  });

  test('our 403 challenge sends its user to authorize again for "mcp admin"; then the call goes through', async () => {
    // No refresh token kept: given one, SDK 1.32 answers a scope challenge by refreshing, which cannot widen the
    // scope (RFC 6749 §6), and gives up ("403 after trying upscoping", its issue #2255) without asking the user.
    const provider = new ApprovingProvider('sdk-step-up', false);
    const client = new SdkClient({ name: 'sdk-step-up', version: '1.0.0' });
    const first = new StreamableHTTPClientTransport(new URL(served.url), { authProvider: provider });
    await assert.rejects(client.connect(first));
    await first.finishAuth(provider.code!);
    const transport = new StreamableHTTPClientTransport(new URL(served.url), { authProvider: provider });
    await client.connect(transport);
    try {
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        ['echo', 'diary'],
      );
      // The step-up needs the user again: the SDK sends them to authorize, and the call fails until the code is
      // redeemed; then it goes through.
      provider.code = undefined;
      await assert.rejects(client.callTool({ name: 'wipe', arguments: {} }));
      assert.ok(provider.code, 'the SDK sent its user to authorize again');
      await transport.finishAuth(provider.code!);
      assert.equal(toolText(await client.callTool({ name: 'wipe', arguments: {} })), 'wiped');
      const scopes = as.log.authorizations.map((query) => query.get('scope'));
      assert.deepEqual(scopes, ['mcp', 'mcp admin']);
    } finally {
      await client.close();
    }
  });
});

describe('mcpwire call steps up', { timeout: 30_000 }, () => {
  let as: TestAuthorizationServer;
  let served: ProtectedDemo;
  let configHome: string;

  before(async () => {
    as = await startAuthorizationServer();
    served = await serveProtectedDemo(as, ['mcp'], guardedServer());
    configHome = await mkdtemp(join(tmpdir(), 'mcpwire-step-up-'));
  });
  after(async () => {
    await served.close();
    await as.close();
    await rm(configHome, { recursive: true, force: true });
  });

  test('--client-id: a second token for "mcp admin" on the 403, and the call goes through', async () => {
    const run = runCli(['call', served.url, '--client-id', 'robot', 'call', 'wipe'], {
      XDG_CONFIG_HOME: configHome,
      MCPWIRE_CLIENT_SECRET: 'robot-secret',
    });
    run.child.stdin.end();
    assert.equal(await run.exit(15_000), 0, run.stderr());
    assert.equal(run.stdout(), 'wiped\n');
    assert.deepEqual(
      as.log.tokenRequests.map((form) => [form.get('grant_type'), form.get('scope')]),
      [
        ['client_credentials', 'mcp'],
        ['client_credentials', 'mcp admin'],
      ],
    );
  });

  test('--client-id with MCPWIRE_CLIENT_KEY: each token request signed with the key (private_key_jwt)', async () => {
    as.reset();
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    as.clientKeys.set('robot-jwt', { ...(await exportJWK(publicKey)), alg: 'ES256' });
    const run = runCli(['call', served.url, '--client-id', 'robot-jwt', 'call', 'wipe'], {
      XDG_CONFIG_HOME: configHome,
      MCPWIRE_CLIENT_KEY: JSON.stringify({ ...(await exportJWK(privateKey)), alg: 'ES256' }),
    });
    run.child.stdin.end();
    assert.equal(await run.exit(15_000), 0, run.stderr());
    assert.equal(run.stdout(), 'wiped\n');
    assert.deepEqual(
      as.log.tokenRequests.map((form) => [form.get('client_assertion_type'), form.get('scope')]),
      [
        ['urn:ietf:params:oauth:client-assertion-type:jwt-bearer', 'mcp'],
        ['urn:ietf:params:oauth:client-assertion-type:jwt-bearer', 'mcp admin'],
      ],
    );
  });
});
