// Every client transport calls fetch as a plain function, as a browser's fetch requires (it throws "Illegal
// invocation" when called as a method of anything but the window): a given fetch and the global default alike.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type DemoHere, serveDemoHere } from '../../test-support/demo-both-transports.js';
import { within } from '../../test-support/time-limit.js';
import { toolText } from '../../test-support/tool-text.js';
import { Client } from '../client.js';
import type { ClientSession } from '../client-session.js';
import { type ConnectUrlOptions, connectUrl } from '../negotiation/connect-url.js';
import { OAuthClient } from '../oauth/oauth-client.js';
import { SSEClientConnection } from '../sse/sse-client-connection.js';
import { ModernHTTPClientConnection } from './modern-http-client-connection.js';
import { StreamableHTTPClientConnection } from './streamable-http-client-connection.js';

const nodeFetch = globalThis.fetch;
let calls = 0;

/** Node's fetch, refusing as a browser's does to run with a `this` other than the global object. */
function browserLikeFetch(this: unknown, input: string | URL | Request, init?: RequestInit) {
  if (this !== undefined && this !== globalThis) {
    throw new TypeError("Failed to execute 'fetch' on 'Window': Illegal invocation");
  }
  calls++;
  return nodeFetch(input, init);
}

const modern = new Client(
  { name: 'plain-fetch-test', version: '1' },
  { era: 'modern', requestTimeoutMs: 10_000 },
);
const legacy = new Client(
  { name: 'plain-fetch-test', version: '1' },
  { era: 'legacy', requestTimeoutMs: 10_000 },
);

describe('fetch is called unbound', () => {
  let demo: DemoHere;
  let base: string;

  before(async () => {
    demo = await serveDemoHere();
    base = demo.base;
  });

  after(async () => {
    globalThis.fetch = nodeFetch;
    await demo.close();
  });

  /** Connects as `options` say, calls echo, and says which transport carried it. */
  async function echoOver(client: Client, path: string, options: ConnectUrlOptions): Promise<string> {
    const before = calls;
    const session: ClientSession = await within(connectUrl(client, base + path, options), 10_000, 'connect');
    try {
      assert.equal(toolText(await session.callTool('echo', { message: 'hi' })), 'Echo: hi');
      assert.ok(calls > before, 'the browser-like fetch was used');
      return session.connection.constructor.name;
    } finally {
      await session.close();
    }
  }

  for (const given of [true, false]) {
    const how = given ? 'a given fetch' : 'the global fetch';
    test(`${how}: the modern, Streamable HTTP and HTTP+SSE clients`, async () => {
      const options: ConnectUrlOptions = given ? { fetch: browserLikeFetch } : {};
      if (!given) globalThis.fetch = browserLikeFetch;
      try {
        assert.equal(await echoOver(modern, '/mcp', options), ModernHTTPClientConnection.name);
        assert.equal(
          await echoOver(legacy, '/mcp', { ...options, transport: 'http' }),
          StreamableHTTPClientConnection.name,
        );
        assert.equal(
          await echoOver(legacy, '/sse', { ...options, transport: 'sse' }),
          SSEClientConnection.name,
        );
      } finally {
        globalThis.fetch = nodeFetch;
      }
    });
  }

  test("an OAuthClient's fetch over a browser-like one (the server wants no token: the request passes)", async () => {
    const oauth = new OAuthClient({
      redirectUri: 'http://127.0.0.1:1/callback',
      authorize: () => Promise.reject(new Error('no sign-in expected')),
      fetch: browserLikeFetch,
    });
    assert.equal(await echoOver(modern, '/mcp', { fetch: oauth.fetch }), ModernHTTPClientConnection.name);
  });
});
