// `mcpwire serve --token-env NAME`: the demo server taking only the tokens in NAME, as the official SDK's clients
// (Streamable HTTP and HTTP+SSE), `mcpwire call`, and `mcpwire connect` started as a desktop app starts it (the
// token in its environment, named in --header) reach it with a token, without one and with a wrong one; and the
// mistakes of the flag.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CLI, type CliRun, callCli, runCli, serveDemo, stopServe } from '../../src/test-support/cli-run.js';
import { within } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

const TOKEN = randomBytes(32).toString('hex');
const OTHER = randomBytes(32).toString('base64url');
const ENV = { MCPWIRE_TEST_TOKENS: `${TOKEN}, ${OTHER}` };
const AUTHORIZATION = { authorization: `Bearer ${TOKEN}` };

describe('mcpwire serve --token-env', { timeout: 120_000 }, () => {
  let serve: CliRun;
  let url: string;

  before(async () => {
    ({ run: serve, url } = await serveDemo(['--token-env', 'MCPWIRE_TEST_TOKENS'], ENV));
  });
  after(() => stopServe(serve));

  test('says so when it starts, and never prints a token', () => {
    assert.match(serve.stderr(), /taking only requests with one of the tokens of --token-env/);
    assert.ok(!serve.stdout().includes(TOKEN) && !serve.stderr().includes(TOKEN));
  });

  test("the official SDK's Streamable HTTP client with a token: a session, a tool call", async () => {
    const client = new Client({ name: 'sdk-tokens', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: AUTHORIZATION } }),
    );
    try {
      const echo = await client.callTool({ name: 'echo', arguments: { message: 'with a token' } });
      assert.equal(toolText(echo), 'Echo: with a token');
    } finally {
      await client.close();
    }
  });

  test("the official SDK's HTTP+SSE client with the other token: the stream and its POSTs", async () => {
    const client = new Client({ name: 'sdk-tokens-sse', version: '1.0.0' });
    const headers = { authorization: `Bearer ${OTHER}` };
    const transport = new SSEClientTransport(new URL('/sse', url), {
      requestInit: { headers },
      eventSourceInit: {
        fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, ...headers } }),
      },
    });
    await client.connect(transport);
    try {
      assert.equal(
        toolText(await client.callTool({ name: 'echo', arguments: { message: 'sse' } })),
        'Echo: sse',
      );
    } finally {
      await client.close();
    }
  });

  test("the official SDK's client without a token is refused", async () => {
    const client = new Client({ name: 'sdk-no-token', version: '1.0.0' });
    await assert.rejects(client.connect(new StreamableHTTPClientTransport(new URL(url))), /401|Unauthorized/);
  });

  test('mcpwire connect as a desktop app starts it: the token in its env, named by --header', async () => {
    const sdk = new Client({ name: 'desktop', version: '1' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: mcpwire reads the variable, as a desktop app's config has it
      args: [CLI, 'connect', '--no-store', url, '--header', 'Authorization: Bearer ${REMOTE_TOKEN}'],
      env: { PATH: process.env.PATH ?? '', REMOTE_TOKEN: TOKEN },
      stderr: 'pipe',
    });
    await within(sdk.connect(transport), 30_000, 'connect');
    try {
      assert.equal(
        toolText(await sdk.callTool({ name: 'echo', arguments: { message: 'desk' } })),
        'Echo: desk',
      );
    } finally {
      await sdk.close();
    }
  });

  test('mcpwire call: with the token it calls; with a wrong one, or none, it fails saying why', async () => {
    const ok = await callCli(url, ['ping', '--header', `Authorization: Bearer ${TOKEN}`]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^pong/);
    const wrong = await callCli(url, ['ping', '--header', `Authorization: Bearer ${TOKEN.slice(1)}`]);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /HTTP 401 .*the access token is not one this server takes; ask its operator/);
    // No token: the client looks for OAuth, finds none, and says that a token given out by hand may be wanted.
    const none = await callCli(url, ['ping']);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /publishes no OAuth metadata .* If it takes one its operator gives out/);
  });
});

test('--token-env mistakes are usage mistakes that say what to do', async () => {
  const cases: Array<[string[], NodeJS.ProcessEnv, RegExp]> = [
    [['--token-env', 'MCPWIRE_UNSET_TOKENS'], {}, /MCPWIRE_UNSET_TOKENS is not set; put the tokens/],
    [['--token-env', 'T'], { T: 'short' }, /--token-env T: a token must be 32 characters or more/],
    [['--token-env', 'T'], { T: `${TOKEN},${TOKEN}` }, /--token-env T: a token is given twice/],
    [['--token-env', 'T', '--stdio'], { T: TOKEN }, /--token-env protects HTTP endpoints; --stdio has none/],
    [
      ['--token-env', 'T', '--oauth-issuer', 'https://as.example', '--oauth-jwks', 'https://as.example/jwks'],
      { T: TOKEN },
      /--token-env and --oauth-issuer each say who may call: give one/,
    ],
  ];
  for (const [args, env, message] of cases) {
    const run = runCli(['serve', '--port', '0', ...args], env);
    run.child.stdin.end();
    assert.equal(await run.exit(10_000), 2, args.join(' '));
    assert.match(run.stderr(), message);
  }
});
