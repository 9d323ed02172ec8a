// `mcpwire connect --client-id … --idp-issuer …`: a desktop client (the official SDK's stdio client) reaches a server
// whose authorization server trusts the organisation's identity provider (enterprise-managed authorization): the
// person's ID token, in a file the app keeps fresh, is traded there for a grant, the grant for a token. Against a
// test identity provider, the test authorization server and mcpwire's protected demo, on loopback.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  startAuthorizationServer,
  type TestAuthorizationServer,
} from '../../src/test-support/authorization-server.js';
import { CLI, killCliRuns, runCli } from '../../src/test-support/cli-run.js';
import {
  startIdentityProvider,
  type TestIdentityProvider,
} from '../../src/test-support/identity-provider.js';
import { type ProtectedDemo, serveProtectedDemo } from '../../src/test-support/protected-demo.js';

describe('mcpwire connect as an enterprise client', { timeout: 60_000 }, () => {
  let as: TestAuthorizationServer;
  let idp: TestIdentityProvider;
  let demo: ProtectedDemo;
  let folder: string;

  before(async () => {
    as = await startAuthorizationServer();
    idp = await startIdentityProvider();
    demo = await serveProtectedDemo(as);
    folder = await mkdtemp(join(tmpdir(), 'mcpwire-enterprise-'));
  });
  beforeEach(() => {
    as.reset();
    as.identityProviderKey = idp.publicKey;
  });
  after(async () => {
    killCliRuns();
    await Promise.all([demo.close(), as.close(), idp.close()]);
    await rm(folder, { recursive: true, force: true });
  });

  const args = () => [
    'connect',
    demo.url,
    '--client-id',
    'robot',
    '--idp-issuer',
    idp.issuer,
    '--idp-client-id',
    'app',
  ];

  test('the ID token in MCPWIRE_ID_TOKEN_FILE, read again for each grant; each client authenticates where it is registered', async () => {
    const tokenFile = join(folder, 'id-token');
    await writeFile(tokenFile, `${await idp.idToken('ada')}\n`);
    const env = {
      XDG_CONFIG_HOME: folder,
      MCPWIRE_CLIENT_SECRET: 'robot-secret',
      MCPWIRE_IDP_CLIENT_SECRET: 'app-secret',
      MCPWIRE_ID_TOKEN_FILE: tokenFile,
    };
    const client = new SdkClient({ name: 'desktop', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, ...args()],
        env: { ...(process.env as Record<string, string>), ...env },
        stderr: 'ignore',
      }),
    );
    try {
      const answer = await client.callTool({ name: 'echo', arguments: { message: 'sso' } });
      assert.deepEqual(answer.content, [{ type: 'text', text: 'Echo: sso' }]);
      // The app signs the person in again: the next grant is asked with the new ID token.
      const fresh = await idp.idToken('ada');
      await writeFile(tokenFile, fresh);
      as.tokens.clear();
      await client.callTool({ name: 'echo', arguments: { message: 'sso' } });
      const exchanges = idp.exchanges.slice(-2);
      assert.equal(exchanges[1].get('subject_token'), fresh);
      assert.notEqual(exchanges[0].get('subject_token'), fresh);
      assert.ok(exchanges.every((e) => e.get('audience') === as.issuer && e.get('resource') === demo.url));
      assert.deepEqual(
        as.log.tokenRequests.map((form) => form.get('grant_type')),
        [0, 1].map(() => 'urn:ietf:params:oauth:grant-type:jwt-bearer'),
      );
      assert.equal(as.log.authorizations.length + as.log.registrations, 0);
    } finally {
      await client.close();
    }
  });

  test('the usage mistakes are named', async () => {
    const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
      [args(), {}, /set MCPWIRE_ID_TOKEN_FILE to the file it is in/],
      [args().slice(0, -2), { MCPWIRE_ID_TOKEN_FILE: 'x' }, /--idp-issuer and --idp-client-id go together/],
      [['connect', demo.url, '--idp-issuer', idp.issuer], {}, /go with --client-id/],
      [
        [...args(), '--idp-issuer', 'idp'],
        { MCPWIRE_ID_TOKEN_FILE: 'x' },
        /must be the identity provider's URL/,
      ],
      [
        args(),
        { MCPWIRE_ID_TOKEN_FILE: 'x', MCPWIRE_CLIENT_TOKEN_FILE: 'y' },
        /is a workload's, leave it unset/,
      ],
    ];
    for (const [argv, env, expected] of cases) {
      const run = runCli(argv, { XDG_CONFIG_HOME: folder, ...env });
      run.child.stdin.end();
      assert.equal(await run.exit(15_000), 2, run.stderr());
      assert.match(run.stderr(), expected);
    }
  });
});
