// `mcpwire call` against a server that wants an OAuth token (mcpwire's ProtectedResource, and a test
// authorization server whose user approves at once): on a terminal it prints where to sign in and waits for
// the browser to come back to its loopback listener; off one it says what to do instead.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import {
  startAuthorizationServer,
  type TestAuthorizationServer,
} from '../../src/test-support/authorization-server.js';
import { CLI, killCliRuns, runCli } from '../../src/test-support/cli-run.js';
import { type ProtectedDemo, serveProtectedDemo } from '../../src/test-support/protected-demo.js';
import { killTerminalRuns, onTerminal } from '../../src/test-support/pseudo-terminal.js';
import { until } from '../../src/test-support/time-limit.js';

const SIGN_IN = /Open this URL in a browser:\n {2}(\S+)\n/;

describe('mcpwire call signs in to a server that wants OAuth', { timeout: 30_000 }, () => {
  let as: TestAuthorizationServer;
  let demo: ProtectedDemo;

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
  });

  test('on a terminal: the sign-in URL, the browser sent back to mcpwire, then the call', async () => {
    const run = onTerminal([
      process.execPath,
      CLI,
      'call',
      demo.url,
      'call',
      'echo',
      '{"message":"signed in"}',
    ]);
    await until(() => SIGN_IN.test(run.shown()), 10_000, 'the sign-in URL').catch((err: Error) => {
      throw new Error(`${err.message}; the terminal shows:\n${run.shown()}`);
    });
    const url = new URL(SIGN_IN.exec(run.shown())![1]);
    assert.equal(url.origin, as.issuer);
    assert.match(run.shown(), new RegExp(`The server wants you to sign in at 127\\.0\\.0\\.1:${as.port}\\.`));
    // The browser: the authorization server sends it straight back to mcpwire's loopback redirect URI.
    const page = await fetch(url);
    assert.match(await page.text(), /Signed in: you can close this tab/);
    assert.equal(await run.closed, 0, run.shown());
    assert.match(run.shown(), /Echo: signed in\n/);

    const [authorization] = as.log.authorizations;
    assert.match(authorization.get('redirect_uri')!, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    assert.equal(authorization.get('code_challenge_method'), 'S256');
    assert.equal(authorization.get('resource'), demo.url);
  });

  test('off a terminal it does not wait for a browser: it says how to go on', async () => {
    const run = runCli(['call', demo.url, 'call', 'echo', '{"message":"x"}']);
    run.child.stdin.end();
    assert.equal(await run.exit(15_000), 1);
    assert.match(run.stderr(), /wants you to sign in \(OAuth\), which mcpwire call does only on a terminal/);
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
});
