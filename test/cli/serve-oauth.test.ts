// `mcpwire serve --oauth-issuer … --oauth-introspection …`: the demo server taking only the access tokens of a
// (test) authorization server, each checked at its introspection endpoint; `--oauth-jwks`: JWT access tokens
// checked against the keys it publishes; and the mistakes of its flags.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import {
  startAuthorizationServer,
  type TestAuthorizationServer,
} from '../../src/test-support/authorization-server.js';
import { type CliRun, killCliRuns, runCli } from '../../src/test-support/cli-run.js';
import { listenLoopback } from '../../src/test-support/http-loopback.js';
import { initializeRequest, post } from '../../src/test-support/mcp-http.js';
import { until } from '../../src/test-support/time-limit.js';

const CREDENTIALS = {
  MCPWIRE_INTROSPECTION_CLIENT_ID: 'resource-server',
  MCPWIRE_INTROSPECTION_CLIENT_SECRET: 'rs-secret',
};

/** `mcpwire serve …args` with `env` added to the environment, stdin closed. */
function serveWith(args: string[], env: Record<string, string>): CliRun {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const run = runCli(['serve', ...args]);
    run.child.stdin.end();
    return run;
  } finally {
    for (const key of Object.keys(env)) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  }
}

/** The URL `serve` prints once it listens (within 10 s). */
async function printedUrl(serve: CliRun): Promise<string> {
  const printed = /http:\/\/127\.0\.0\.1:\d+\/mcp/;
  await until(() => printed.test(serve.stdout()), 10_000, 'the URL on stdout').catch((err: Error) => {
    throw new Error(`${err.message}; stderr: ${serve.stderr()}`);
  });
  return printed.exec(serve.stdout())![0];
}

describe('mcpwire serve with OAuth', { timeout: 120_000 }, () => {
  let as: TestAuthorizationServer;
  let serve: CliRun;
  let url: string;

  before(async () => {
    as = await startAuthorizationServer();
    serve = serveWith(
      [
        '--port',
        '0',
        '--no-legacy-sse',
        '--oauth-issuer',
        as.issuer,
        '--oauth-introspection',
        `${as.issuer}/introspect`,
      ],
      CREDENTIALS,
    );
    url = await printedUrl(serve);
  });
  after(async () => {
    killCliRuns();
    await as.close();
  });

  test('no token: 401 naming the metadata, which names the issuer and this server', async () => {
    const refused = await post(url, initializeRequest());
    assert.equal(refused.status, 401);
    const metadataUrl = `${new URL(url).origin}/.well-known/oauth-protected-resource/mcp`;
    assert.equal(refused.headers.get('www-authenticate'), `Bearer resource_metadata="${metadataUrl}"`);
    await refused.text();
    const metadata = (await (await fetch(metadataUrl)).json()) as Record<string, unknown>;
    assert.equal(metadata.resource, url);
    assert.deepEqual(metadata.authorization_servers, [as.issuer]);
    assert.match(serve.stderr(), new RegExp(`taking OAuth access tokens of ${as.issuer} for ${url}`));
  });

  test('a token the authorization server vouches for, for this server, is taken; one for another is not', async () => {
    as.tokens.set('mine', { scopes: [], resource: url });
    as.tokens.set('theirs', { scopes: [], resource: 'https://elsewhere.example/mcp' });
    const taken = await post(url, initializeRequest(), { headers: { authorization: 'Bearer mine' } });
    assert.equal(taken.status, 200);
    assert.ok(taken.headers.get('mcp-session-id'));
    await taken.text();
    const refused = await post(url, initializeRequest(), { headers: { authorization: 'Bearer theirs' } });
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get('www-authenticate')!, /error="invalid_token"/);
    await refused.text();
    // Each was introspected with the server's own credentials.
    assert.ok(as.log.introspections.some((r) => r.get('token') === 'mine'));
  });

  test('incomplete OAuth flags, or no credentials, are usage mistakes that say what is missing', async () => {
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [
        ['--oauth-issuer', as.issuer],
        CREDENTIALS,
        /--oauth-issuer goes with one of --oauth-introspection .* and --oauth-jwks/,
      ],
      [
        [
          '--oauth-issuer',
          as.issuer,
          '--oauth-introspection',
          `${as.issuer}/introspect`,
          '--oauth-jwks',
          `${as.issuer}/jwks`,
        ],
        CREDENTIALS,
        /--oauth-issuer goes with one of/,
      ],
      [
        ['--oauth-issuer', as.issuer, '--oauth-introspection', `${as.issuer}/introspect`],
        {},
        /set MCPWIRE_INTROSPECTION_CLIENT_ID and MCPWIRE_INTROSPECTION_CLIENT_SECRET/,
      ],
      [
        ['--oauth-scope', 'mcp:tools'],
        CREDENTIALS,
        /--oauth-scope, --oauth-resource and --oauth-dpop need --oauth-issuer/,
      ],
      [['--oauth-dpop', 'require'], CREDENTIALS, /--oauth-dpop need --oauth-issuer/],
      [
        [
          '--oauth-issuer',
          'https://as.example',
          '--oauth-introspection',
          'https://as.example/i',
          '--oauth-dpop',
          'yes',
        ],
        CREDENTIALS,
        /--oauth-dpop is accept .* or require .*, not "yes"/,
      ],
      [
        ['--oauth-issuer', 'nope', '--oauth-introspection', 'x'],
        CREDENTIALS,
        /--oauth-issuer takes a URL, not "nope"/,
      ],
    ];
    for (const [args, env, message] of cases) {
      const run = serveWith(['--port', '0', ...args], env);
      assert.equal(await run.exit(10_000), 2, args.join(' '));
      assert.match(run.stderr(), message);
    }
  });
});

test('keys or an introspection endpoint on plain http (not loopback): serve fails at once, saying why, and exits', async () => {
  for (const [flag, url, message] of [
    [
      '--oauth-jwks',
      'http://as.example/jwks',
      /jwtVerifier: the jwksUrl http:\/\/as\.example\/jwks is not https/,
    ],
    [
      '--oauth-introspection',
      'http://as.example/introspect',
      /introspectionVerifier: the endpoint http:\/\/as\.example\/introspect is not https/,
    ],
  ] as const) {
    const run = serveWith(
      ['--port', '0', '--no-legacy-sse', '--oauth-issuer', 'https://as.example', flag, url],
      CREDENTIALS,
    );
    // Its port was open already when the check failed: it must not keep the command alive.
    assert.equal(await run.exit(10_000), 1, run.stderr());
    assert.match(run.stderr(), message);
  }
});

describe("mcpwire serve --oauth-jwks: JWT access tokens checked against the issuer's keys", {
  timeout: 60_000,
}, () => {
  const ISSUER = 'https://as.example';
  let serve: CliRun;
  let url: string;
  let closeKeys: () => Promise<void>;
  let sign: (audience: string) => Promise<string>;

  before(async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    const keys = await listenLoopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    });
    closeKeys = () => keys.close();
    sign = (audience) =>
      new SignJWT({ scope: 'mcp:tools' })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' })
        .setIssuer(ISSUER)
        .setAudience(audience)
        .setSubject('grace')
        .setExpirationTime('10m')
        .sign(privateKey);
    serve = serveWith(
      [
        '--port',
        '0',
        '--no-legacy-sse',
        '--oauth-issuer',
        ISSUER,
        '--oauth-jwks',
        `http://127.0.0.1:${keys.port}/jwks`,
      ],
      {},
    );
    url = await printedUrl(serve);
  });
  after(async () => {
    killCliRuns();
    await closeKeys?.();
  });

  test('a JWT for this server is taken; one for another, or none, gets 401', async () => {
    assert.match(serve.stderr(), /JWTs checked against http:\/\/127\.0\.0\.1:\d+\/jwks/);
    const taken = await post(url, initializeRequest(), {
      headers: { authorization: `Bearer ${await sign(url)}` },
    });
    assert.equal(taken.status, 200, await taken.clone().text());
    assert.ok(taken.headers.get('mcp-session-id'));
    await taken.text();
    const elsewhere = await sign('https://elsewhere.example/mcp');
    const refused = await post(url, initializeRequest(), {
      headers: { authorization: `Bearer ${elsewhere}` },
    });
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get('www-authenticate')!, /error="invalid_token"/);
    await refused.text();
    const none = await post(url, initializeRequest());
    assert.equal(none.status, 401);
    await none.text();
  });
});

describe("mcpwire serve --oauth-dpop require: only tokens bound to the caller's key", {
  timeout: 120_000,
}, () => {
  let as: TestAuthorizationServer;
  let serve: CliRun;
  let url: string;

  before(async () => {
    as = await startAuthorizationServer();
    as.dpop = true;
    serve = serveWith(
      [
        '--port',
        '0',
        '--oauth-issuer',
        as.issuer,
        '--oauth-introspection',
        `${as.issuer}/introspect`,
        '--oauth-dpop',
        'require',
      ],
      CREDENTIALS,
    );
    url = await printedUrl(serve);
  });
  after(async () => {
    killCliRuns();
    await as.close();
  });

  test('mcpwire call as a machine client gets a bound token and proves its key; a Bearer token is refused', async () => {
    assert.match(serve.stderr(), /taking OAuth access tokens \(DPoP-bound ones: require\)/);
    const metadata = (await (
      await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url))
    ).json()) as {
      dpop_bound_access_tokens_required?: boolean;
    };
    assert.equal(metadata.dpop_bound_access_tokens_required, true);
    const called = runCli(['call', url, '--client-id', 'robot', 'call', 'echo', '{"message":"bound"}'], {
      MCPWIRE_CLIENT_SECRET: 'robot-secret',
    });
    called.child.stdin.end();
    assert.equal(await called.exit(30_000), 0, called.stderr());
    assert.match(called.stdout(), /Echo: bound/);
    const [token, grant] = [...as.tokens].at(-1)!;
    assert.equal(typeof grant.jkt, 'string');
    const asBearer = await post(url, initializeRequest(), { headers: { authorization: `Bearer ${token}` } });
    assert.equal(asBearer.status, 401);
    assert.match(await asBearer.text(), /takes only DPoP-bound tokens/);
  });
});
