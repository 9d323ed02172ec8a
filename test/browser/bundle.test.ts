// `mcpwire/browser` bundles for a browser and runs without Node: esbuild with `platform: 'browser'` (which fails
// on a `node:` import) takes every export, and the bundle then runs in a context holding only what a browser
// has (no process, Buffer, require or setImmediate): it loads, connects to a real server in each of its
// transports, and signs in with OAuth (PKCE by Web Crypto). Needs `npm run build` first (npm test does it).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createContext, runInContext } from 'node:vm';
import { gzipSync } from 'node:zlib';
import { bundleForBrowser } from '../../src/test-support/browser-bundle.js';
import { type DemoHere, serveDemoHere } from '../../src/test-support/demo-both-transports.js';
import { type OAuthFixture, startOAuthFixture } from '../../src/test-support/oauth-fixture.js';

const ENTRY = fileURLToPath(new URL('../../dist/browser.js', import.meta.url));
const EVERYTHING = "export * from 'mcpwire/browser';";

/** Node-only modules of mcpwire: none may be in the bundle. */
const NODE_ONLY =
  /dist\/(cli\/|cluster\/|host\/|eventstore\/redis|http\/node-adapter|client\/stdio\/|client\/negotiation\/connect-stdio)/;

before(() => {
  assert.ok(existsSync(ENTRY), `${ENTRY} is missing: run \`npm run build\` first (npm test does)`);
});

test('every export bundles for platform browser, with nothing of Node and no server in it', async (t) => {
  const { code, inputs } = await bundleForBrowser(EVERYTHING, { minify: true });
  const paths = Object.keys(inputs);
  assert.deepEqual(
    paths.filter((p) => p.startsWith('node:') || NODE_ONLY.test(p)),
    [],
  );
  // Client code only: the server side (handlers, sessions of a server) stays out.
  assert.deepEqual(
    paths.filter((p) =>
      /dist\/(server\/(?!schema)|extensions\/apps\/(register-app|renders-apps|app-checks))/.test(p),
    ),
    [],
  );
  assert.ok(!paths.some((p) => p.includes('node_modules/ioredis')));
  const gzipped = gzipSync(code).length;
  t.diagnostic(`mcpwire/browser, every export, minified: ${code.length} bytes, ${gzipped} gzipped`);
});

/** The globals a browser page has that the client uses; nothing of Node's. */
function browserGlobals(extra: Record<string, unknown>) {
  const g = globalThis;
  return {
    ...extra,
    fetch: (input: string | URL | Request, init?: RequestInit) => g.fetch(input, init),
    Headers,
    Request,
    Response,
    URL,
    URLSearchParams,
    AbortController,
    AbortSignal,
    DOMException,
    Event,
    EventTarget,
    ReadableStream,
    TextEncoder,
    TextDecoder,
    crypto: g.crypto,
    atob,
    btoa,
    setTimeout,
    clearTimeout,
    setInterval,
    clearInterval,
    queueMicrotask,
    structuredClone,
    console,
  };
}

describe('the bundle, run without Node', () => {
  let demo: DemoHere;
  let oauth: OAuthFixture;
  let code: string;

  before(async () => {
    demo = await serveDemoHere();
    oauth = await startOAuthFixture();
    ({ code } = await bundleForBrowser(EVERYTHING, { format: 'iife', globalName: 'mcpwire' }));
  });

  after(async () => {
    await demo.close();
    await oauth.close();
  });

  /**
   * Runs `script` after the bundle, in a fresh context with browser globals only; resolves with its result, through
   * JSON (the context's arrays and objects are of another realm).
   */
  async function run(script: string, extra: Record<string, unknown> = {}): Promise<unknown> {
    const context = createContext(browserGlobals(extra));
    assert.equal(
      runInContext('typeof process + typeof Buffer + typeof require + typeof setImmediate', context),
      'undefinedundefinedundefinedundefined',
    );
    runInContext(code, context, { filename: 'mcpwire-browser.js' });
    return JSON.parse(
      await runInContext(`(async () => JSON.stringify(await (async () => { ${script} })()))()`, context),
    );
  }

  test('it loads, and the client speaks both eras over all three HTTP transports', async () => {
    const answers = await run(
      `
      const { Client, connectUrl } = mcpwire;
      const client = new Client({ name: 'no-node', version: '1' }, { requestTimeoutMs: 10000 });
      const legacy = new Client({ name: 'no-node', version: '1' }, { era: 'legacy', requestTimeoutMs: 10000 });
      const out = [];
      for (const [c, url, transport] of [
        [client, base + '/mcp', 'auto'], [legacy, base + '/mcp', 'http'], [legacy, base + '/sse', 'sse'],
      ]) {
        const session = await connectUrl(c, url, { transport });
        const tools = (await session.listTools()).tools.map((t) => t.name);
        const echo = (await session.callTool('echo', { message: transport })).content[0].text;
        out.push([session.era, session.connection.constructor.name, tools.includes('long_running'), echo]);
        await session.close();
      }
      return out;
      `,
      { base: demo.base },
    );
    assert.deepEqual(answers, [
      ['modern', 'ModernHTTPClientConnection', true, 'Echo: auto'],
      ['legacy', 'StreamableHTTPClientConnection', true, 'Echo: http'],
      ['legacy', 'SSEClientConnection', true, 'Echo: sse'],
    ]);
  });

  test('its OAuthClient signs in (PKCE S256 by Web Crypto, checked by the authorization server) and calls', async () => {
    oauth.reset();
    const approve = async (url: URL) => {
      const response = await fetch(url, { redirect: 'manual' });
      await response.body?.cancel();
      return response.headers.get('location')!;
    };
    const echo = await run(
      `
      const { Client, OAuthClient, StreamableHTTPClientConnection } = mcpwire;
      const auth = new OAuthClient({ redirectUri: 'http://127.0.0.1:1/callback', authorize: approve });
      const client = new Client({ name: 'no-node', version: '1' }, { era: 'legacy', requestTimeoutMs: 10000 });
      const session = await client.connect(new StreamableHTTPClientConnection(serverUrl, { fetch: auth.fetch }));
      const text = (await session.callTool('echo', { message: 'signed in' })).content[0].text;
      await session.close();
      return [text, (await auth.tokens())?.token_type];
      `,
      { approve, serverUrl: oauth.serverUrl },
    );
    assert.deepEqual(echo, ['Echo: signed in', 'Bearer']);
    assert.ok(
      oauth.mcpAuthorization.some((line) => line.startsWith('POST Bearer ')),
      `the MCP server saw the token: ${oauth.mcpAuthorization.join('; ')}`,
    );
  });
});
