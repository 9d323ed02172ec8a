// `mcpwire call` against a server that wants an OAuth token (mcpwire's ProtectedResource, and a test
// authorization server whose user approves at once): on a terminal it prints where to sign in and waits for
// the browser to come back to its loopback listener; off one it says what to do instead. The sign-in is kept
// in the user's configuration folder (a temporary XDG_CONFIG_HOME here) for the next runs, which share it: several
// started at once (`call` runs, or `connect` processes under a desktop client) refresh it once.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { OAuthTokenFile, signInFolder } from '../../src/cli/oauth-token-file.js';
import {
  startAuthorizationServer,
  type TestAuthorizationServer,
} from '../../src/test-support/authorization-server.js';
import { CLI, killCliRuns, runCli } from '../../src/test-support/cli-run.js';
import { type ProtectedDemo, serveProtectedDemo } from '../../src/test-support/protected-demo.js';
import { killTerminalRuns, onTerminal, type TerminalRun } from '../../src/test-support/pseudo-terminal.js';
import { until } from '../../src/test-support/time-limit.js';

const SIGN_IN = /Open this URL in a browser:\n {2}(\S+)\n/;

/** Plays the browser for a run on a terminal: opens the sign-in URL it prints, which comes back to it at once. */
async function signIn(run: TerminalRun): Promise<URL> {
  await until(() => SIGN_IN.test(run.shown()), 10_000, 'the sign-in URL').catch((err: Error) => {
    throw new Error(`${err.message}; the terminal shows:\n${run.shown()}`);
  });
  const url = new URL(SIGN_IN.exec(run.shown())![1]);
  const page = await fetch(url);
  assert.match(await page.text(), /mcpwire call has the answer: you can close this tab/);
  return url;
}

describe('mcpwire call signs in to a server that wants OAuth', { timeout: 120_000 }, () => {
  let as: TestAuthorizationServer;
  let demo: ProtectedDemo;
  let roots: string[] = [];
  /** A configuration folder of its own, as XDG_CONFIG_HOME, so that no run reads or writes the user's. */
  const configHome = async () => {
    roots.push(await mkdtemp(join(tmpdir(), 'mcpwire-call-oauth-')));
    return { XDG_CONFIG_HOME: roots.at(-1)! };
  };
  /** The access token the authorization server issued last. */
  const lastIssued = () => [...as.tokens.keys()].at(-1)!;
  /** Where a run with `env` keeps the demo's sign-in. */
  const savedAt = (env: { XDG_CONFIG_HOME: string }) =>
    new OAuthTokenFile(new URL(demo.url), signInFolder(env), () => {}).path;
  const echo = (message: string) => [
    process.execPath,
    CLI,
    'call',
    demo.url,
    'call',
    'echo',
    JSON.stringify({ message }),
  ];
  /** A configuration folder where a run on a terminal signed in, its access token since expired. */
  const signedInThenExpired = async () => {
    const env = await configHome();
    const first = onTerminal(echo('first'), env);
    await signIn(first);
    assert.equal(await first.closed, 0, first.shown());
    const file = savedAt(env);
    const saved = JSON.parse(await readFile(file, 'utf8'));
    saved.state.tokens.expires_at = Date.now() - 1000;
    await writeFile(file, JSON.stringify(saved));
    return { env, file };
  };

  before(async () => {
    as = await startAuthorizationServer();
    demo = await serveProtectedDemo(as);
  });
  beforeEach(() => as.reset());
  after(async () => {
    killTerminalRuns();
    killCliRuns();
    await demo.close();
    await as.close();
    await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
    roots = [];
  });

  test('on a terminal: the sign-in URL, the browser sent back to mcpwire, then the call', async () => {
    const run = onTerminal(echo('signed in'), await configHome());
    // The browser: the authorization server sends it straight back to mcpwire's loopback redirect URI.
    const url = await signIn(run);
    assert.equal(url.origin, as.issuer);
    assert.match(run.shown(), new RegExp(`The server wants you to sign in at 127\\.0\\.0\\.1:${as.port}\\.`));
    assert.equal(await run.closed, 0, run.shown());
    assert.match(run.shown(), /Echo: signed in\n/);

    const [authorization] = as.log.authorizations;
    assert.match(authorization.get('redirect_uri')!, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    assert.equal(authorization.get('code_challenge_method'), 'S256');
    assert.equal(authorization.get('resource'), demo.url);
  });

  test('off a terminal it does not wait for a browser: it says how to go on', async () => {
    const run = runCli(['call', demo.url, 'call', 'echo', '{"message":"x"}'], await configHome());
    run.child.stdin.end();
    assert.equal(await run.exit(15_000), 1);
    assert.match(
      run.stderr(),
      /wants you to sign in \(OAuth\), which mcpwire call does only on a terminal; run it once on one \(the sign-in is kept for the next runs\)/,
    );
    assert.match(run.stderr(), /--header "Authorization: Bearer …"/);
    assert.equal(as.log.authorizations.length, 0);
  });

  test('a token given with --header is used as it is: no sign-in', async () => {
    as.tokens.set('by-hand', { scopes: [], resource: demo.url });
    const run = runCli([
      'call',
      demo.url,
      'call',
      'echo',
      '{"message":"by hand"}',
      '--header',
      'Authorization: Bearer by-hand',
    ]);
    run.child.stdin.end();
    assert.equal(await run.exit(15_000), 0, run.stderr());
    assert.equal(run.stdout(), 'Echo: by hand\n');
    assert.equal(as.log.authorizations.length, 0);
  });

  test('the sign-in is kept: the next run signs in no more, and the token it refreshes is saved', async () => {
    const env = await configHome();
    const first = onTerminal(echo('first'), env);
    await signIn(first);
    assert.equal(await first.closed, 0, first.shown());
    const file = savedAt(env);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.equal((await stat(join(file, '..'))).mode & 0o777, 0o700);
    const saved = JSON.parse(await readFile(file, 'utf8'));
    assert.equal(saved.state.tokens.access_token, lastIssued());
    // Time passes: the access token has expired by the next run.
    saved.state.tokens.expires_at = Date.now() - 1000;
    await writeFile(file, JSON.stringify(saved));

    // Off a terminal, where a sign-in would fail: the saved registration and refresh token serve instead.
    const next = runCli(['call', demo.url, 'call', 'echo', '{"message":"next"}'], env);
    next.child.stdin.end();
    assert.equal(await next.exit(15_000), 0, next.stderr());
    assert.equal(next.stdout(), 'Echo: next\n');
    assert.equal(as.log.authorizations.length, 1);
    assert.equal(as.log.registrations, 1);
    assert.deepEqual(
      as.log.tokenRequests.map((form) => form.get('grant_type')),
      ['authorization_code', 'refresh_token'],
    );
    const refreshed = JSON.parse(await readFile(file, 'utf8')).state.tokens;
    assert.equal(as.tokens.size, 2);
    assert.equal(refreshed.access_token, lastIssued());
    assert.equal(refreshed.refresh_token, lastIssued().replace('token-', 'refresh-'));
    assert.ok(refreshed.expires_at > Date.now() + 3_000_000);
  });

  test('runs started at once share the kept sign-in: one refreshes it, the others take what it got', async () => {
    const { env, file } = await signedInThenExpired();
    // A refresh token good once: a second refresh with it would fail, and off a terminal no sign-in can follow.
    as.rotateRefreshTokens = true;

    const runs = [1, 2, 3, 4].map((n) =>
      runCli(['call', demo.url, 'call', 'echo', `{"message":"run ${n}"}`], env),
    );
    for (const run of runs) run.child.stdin.end();
    for (const [i, run] of runs.entries()) {
      assert.equal(await run.exit(40_000), 0, run.stderr());
      assert.equal(run.stdout(), `Echo: run ${i + 1}\n`);
    }
    assert.deepEqual(
      as.log.tokenRequests.map((form) => form.get('grant_type')),
      ['authorization_code', 'refresh_token'],
    );
    assert.equal(JSON.parse(await readFile(file, 'utf8')).state.tokens.access_token, lastIssued());
    await assert.rejects(stat(`${file}.lock`), { code: 'ENOENT' });
  });

  test('two mcpwire connect processes started at once share the kept sign-in, refreshed once', async () => {
    const { env } = await signedInThenExpired();
    as.rotateRefreshTokens = true;

    // As a desktop app starts them: the official SDK v1 client, each over the stdio of a connect of its own.
    const clients = [1, 2].map(() => new SdkClient({ name: 'desktop', version: '1' }));
    await Promise.all(
      clients.map((client) =>
        client.connect(
          new StdioClientTransport({
            command: process.execPath,
            args: [CLI, 'connect', demo.url],
            env: { ...(process.env as Record<string, string>), ...env },
            stderr: 'ignore',
          }),
        ),
      ),
    );
    try {
      const answers = await Promise.all(
        clients.map((client, i) => client.callTool({ name: 'echo', arguments: { message: `desktop ${i}` } })),
      );
      assert.deepEqual(
        answers.map((a) => a.content),
        [0, 1].map((i) => [{ type: 'text', text: `Echo: desktop ${i}` }]),
      );
      assert.deepEqual(
        as.log.tokenRequests.map((form) => form.get('grant_type')),
        ['authorization_code', 'refresh_token'],
      );
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  test('--client-id: a machine client gets its token with its secret from the environment, no one signs in', async () => {
    const env = await configHome();
    const run = runCli(['call', demo.url, '--client-id', 'robot', 'call', 'echo', '{"message":"beep"}'], {
      ...env,
      MCPWIRE_CLIENT_SECRET: 'robot-secret',
    });
    run.child.stdin.end();
    assert.equal(await run.exit(15_000), 0, run.stderr());
    assert.equal(run.stdout(), 'Echo: beep\n');
    assert.equal(as.log.authorizations.length, 0);
    assert.deepEqual(
      as.log.tokenRequests.map((form) => form.get('grant_type')),
      ['client_credentials'],
    );
    // Without the secret in the environment, or with a token given too: a usage mistake saying so.
    for (const [args, message] of [
      [['--client-id', 'robot'], /set MCPWIRE_CLIENT_SECRET to its secret/],
      [['--client-id', 'robot', '--header', 'Authorization: Bearer x'], /give one of them/],
    ] as const) {
      const wrong = runCli(['call', demo.url, ...args, 'tools'], env);
      wrong.child.stdin.end();
      assert.equal(await wrong.exit(15_000), 2, wrong.stderr());
      assert.match(wrong.stderr(), message);
    }
  });

  test('connect --client-id: a desktop client reaches the server through a machine client, no one signs in', async () => {
    const env = await configHome();
    const client = new SdkClient({ name: 'agent', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'connect', demo.url, '--client-id', 'robot'],
        env: { ...(process.env as Record<string, string>), ...env, MCPWIRE_CLIENT_SECRET: 'robot-secret' },
        stderr: 'ignore',
      }),
    );
    try {
      const answer = await client.callTool({ name: 'echo', arguments: { message: 'agent' } });
      assert.deepEqual(answer.content, [{ type: 'text', text: 'Echo: agent' }]);
      assert.equal(as.log.authorizations.length, 0);
      assert.deepEqual(
        as.log.tokenRequests.map((form) => form.get('grant_type')),
        ['client_credentials'],
      );
    } finally {
      await client.close();
    }
    const wrong = runCli(['connect', demo.url, '--client-id', 'robot'], env);
    wrong.child.stdin.end();
    assert.equal(await wrong.exit(15_000), 2, wrong.stderr());
    assert.match(wrong.stderr(), /set MCPWIRE_CLIENT_SECRET to its secret/);
  });

  test('connect --client-id as a workload: the identity token in MCPWIRE_CLIENT_TOKEN_FILE, read for each token', async () => {
    const env = await configHome();
    const idp = await generateKeyPair('ES256');
    as.workloadKey = { ...(await exportJWK(idp.publicKey)), alg: 'ES256' };
    const tokenFile = join(env.XDG_CONFIG_HOME, 'identity-token');
    const identity = () =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'ES256' })
        .setAudience(as.issuer)
        .setExpirationTime('5m')
        .sign(idp.privateKey);
    await writeFile(tokenFile, `${await identity()}\n`);
    const client = new SdkClient({ name: 'agent', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'connect', demo.url, '--client-id', 'workload'],
        env: { ...(process.env as Record<string, string>), ...env, MCPWIRE_CLIENT_TOKEN_FILE: tokenFile },
        stderr: 'ignore',
      }),
    );
    try {
      const answer = await client.callTool({ name: 'echo', arguments: { message: 'pod' } });
      assert.deepEqual(answer.content, [{ type: 'text', text: 'Echo: pod' }]);
      // The platform rewrites the token; the next token is got with the new one.
      const rewritten = await identity();
      await writeFile(tokenFile, rewritten);
      as.tokens.clear();
      await client.callTool({ name: 'echo', arguments: { message: 'pod' } });
      assert.deepEqual(
        as.log.tokenRequests.map((form) => [form.get('grant_type'), form.get('client_id')]),
        [0, 1].map(() => ['urn:ietf:params:oauth:grant-type:jwt-bearer', 'workload']),
      );
      assert.equal(as.log.tokenRequests[1].get('assertion'), rewritten);
      assert.equal(as.log.authorizations.length, 0);
    } finally {
      await client.close();
    }
    const both = runCli(['connect', demo.url, '--client-id', 'workload'], {
      ...env,
      MCPWIRE_CLIENT_TOKEN_FILE: tokenFile,
      MCPWIRE_CLIENT_SECRET: 'x',
    });
    both.child.stdin.end();
    assert.equal(await both.exit(15_000), 2, both.stderr());
    assert.match(
      both.stderr(),
      /--client-id: set one of MCPWIRE_CLIENT_SECRET, MCPWIRE_CLIENT_TOKEN_FILE, not 2/,
    );
  });

  test('--no-store keeps nothing: the next run signs in again', async () => {
    const env = await configHome();
    const run = onTerminal([...echo('once'), '--no-store'], env);
    await signIn(run);
    assert.equal(await run.closed, 0, run.shown());
    assert.deepEqual(await readdir(env.XDG_CONFIG_HOME), []);
  });

  test('a corrupt saved sign-in is warned about, then replaced by a new sign-in', async () => {
    const env = await configHome();
    const first = onTerminal(echo('first'), env);
    await signIn(first);
    assert.equal(await first.closed, 0, first.shown());
    const file = savedAt(env);
    await writeFile(file, '{"server": "http');

    const run = onTerminal(echo('again'), env);
    await signIn(run);
    assert.equal(await run.closed, 0, run.shown());
    assert.match(run.shown(), /ignoring the saved sign-in .*\(not JSON: .*\); a new sign-in will replace it/);
    assert.match(run.shown(), /Echo: again\n/);
    assert.equal(as.tokens.size, 2);
    assert.equal(JSON.parse(await readFile(file, 'utf8')).state.tokens.access_token, lastIssued());
  });

  test('the next run listens on the port registered; when it is taken, it registers again with another', async () => {
    const env = await configHome();
    const first = onTerminal(echo('first'), env);
    await signIn(first);
    assert.equal(await first.closed, 0, first.shown());
    const registered = new URL(as.log.authorizations[0].get('redirect_uri')!);

    // The authorization server forgets its tokens: the next run must sign in again, with the port in use.
    as.reset();
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(Number(registered.port), '127.0.0.1', resolve));
    try {
      const run = onTerminal(echo('moved'), env);
      await signIn(run);
      assert.equal(await run.closed, 0, run.shown());
    } finally {
      squatter.close();
    }
    const moved = new URL(as.log.authorizations[0].get('redirect_uri')!);
    assert.notEqual(moved.port, registered.port);
    assert.equal(as.log.registrations, 1, 'registered again, with the new redirect URI');
    assert.equal(JSON.parse(await readFile(savedAt(env), 'utf8')).redirectUri, moved.href);
  });
});
