// CORS on both HTTP handlers, through the one intake: preflights, the headers of real answers (refusals too), the
// Origin check that lets CORS origins through, and what stays as it was without the option.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDemoServer } from '../demo/demo-server.js';
import { StreamableHTTPHandler } from '../server/http/streamable-http-handler.js';
import { LegacySSEHandler } from '../server/sse/legacy-sse-handler.js';
import { initializeRequest, post, type Served, serveOn } from '../test-support/mcp-http.js';
import { CORS_REQUEST_HEADERS, Cors } from './cors.js';
import { ProtectedResource } from './protected-resource.js';

const PAGE = 'http://127.0.0.1:4100';
const APP = 'https://app.example.com';

/** A preflight as Chromium sends it: lower-case names, sorted, comma-separated. */
function preflight(url: string, origin: string, headers = 'content-type,mcp-method,mcp-protocol-version') {
  return fetch(url, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': headers,
    },
  });
}

const allowedHeaders = (response: Response) =>
  (response.headers.get('access-control-allow-headers') ?? '').split(', ');

describe('CORS on the Streamable HTTP handler', () => {
  const server = createDemoServer();
  const errors: Error[] = [];
  const handler = new StreamableHTTPHandler(server, {
    cors: { origins: [PAGE, APP] },
    onerror: (err) => errors.push(err),
  });
  let served: Served;

  before(async () => {
    served = await serveOn(handler.node());
  });
  after(async () => {
    await handler.close({ deadlineMs: 0 });
    await served.close();
  });

  test('a preflight from an allowed origin: 204 with the methods, the headers MCP uses, a max age, Vary', async () => {
    const response = await preflight(
      served.url,
      PAGE,
      'authorization,content-type,mcp-method,mcp-name,mcp-param-region,mcp-param-x.y,mcp-protocol-version',
    );
    assert.equal(response.status, 204);
    assert.equal(response.headers.get('access-control-allow-origin'), PAGE);
    assert.equal(response.headers.get('access-control-allow-methods'), 'GET, POST, DELETE');
    assert.deepEqual(allowedHeaders(response), [
      ...CORS_REQUEST_HEADERS,
      'mcp-param-region',
      'mcp-param-x.y',
    ]);
    assert.equal(response.headers.get('access-control-max-age'), '7200');
    assert.equal(
      response.headers.get('vary'),
      'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    );
    assert.equal(response.headers.get('access-control-allow-credentials'), null);
    assert.equal(await response.text(), '');
  });

  test('only well-formed Mcp-Param-* names are echoed; other unknown headers are not allowed', async () => {
    const response = await preflight(
      served.url,
      APP,
      'content-type, mcp-param-, mcp-param-a@b, x-api-key, mcp-session-id, MCP-Param-Zone',
    );
    assert.equal(response.status, 204);
    assert.equal(response.headers.get('access-control-allow-origin'), APP);
    assert.deepEqual(allowedHeaders(response), [...CORS_REQUEST_HEADERS, 'mcp-param-zone']);
  });

  test('a preflight from another origin: 403 with no CORS header, so the browser fails the call', async () => {
    // A loopback page passes the DNS-rebinding check by default, but is not a CORS origin.
    const response = await preflight(served.url, 'http://127.0.0.1:4999');
    assert.equal(response.status, 403);
    assert.equal(response.headers.get('access-control-allow-origin'), null);
    const body = (await response.json()) as { error: { message: string } };
    assert.match(
      body.error.message,
      /pages of the origin "http:\/\/127\.0\.0\.1:4999" may not call.*--cors-origin/,
    );
  });

  test('answers to an allowed origin are readable: the origin itself, the session id exposed, Vary', async () => {
    const response = await post(served.url, initializeRequest(), { headers: { origin: APP } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('access-control-allow-origin'), APP);
    assert.equal(
      response.headers.get('access-control-expose-headers'),
      'Mcp-Session-Id, WWW-Authenticate, Retry-After',
    );
    assert.equal(response.headers.get('vary'), 'Origin');
    assert.ok(response.headers.get('mcp-session-id'));
    await response.body?.cancel();
  });

  test('refusals after the origin checks are readable too (here a 406)', async () => {
    const response = await fetch(served.url, {
      method: 'POST',
      headers: { origin: PAGE, 'content-type': 'application/json', accept: 'application/json' },
      body: '{}',
    });
    assert.equal(response.status, 406);
    assert.equal(response.headers.get('access-control-allow-origin'), PAGE);
    await response.body?.cancel();
  });

  test('an answer to no page, or to a page of another origin, carries Vary: Origin and no allow-origin', async () => {
    for (const headers of [{}, { origin: 'http://localhost:4999' }] as Record<string, string>[]) {
      const response = await post(served.url, initializeRequest(), { headers });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('vary'), 'Origin');
      assert.equal(response.headers.get('access-control-allow-origin'), null);
      await response.body?.cancel();
    }
  });

  test('a CORS origin passes the DNS-rebinding Origin check, which still refuses other origins', async () => {
    const allowed = await post(served.url, initializeRequest(), { headers: { origin: APP } });
    assert.equal(allowed.status, 200);
    await allowed.body?.cancel();
    const refused = await post(served.url, initializeRequest(), {
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.headers.get('access-control-allow-origin'), null);
    await refused.body?.cancel();
  });

  test('the web-standard adapter carries the same headers', async () => {
    const response = await handler.fetch(
      new Request(served.url, {
        method: 'POST',
        headers: {
          host: `127.0.0.1:${served.port}`,
          origin: PAGE,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(initializeRequest()),
      }),
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('access-control-allow-origin'), PAGE);
    assert.equal(response.headers.get('vary'), 'Origin');
    assert.ok(response.headers.get('mcp-session-id'));
    assert.equal(response.headers.get('content-type'), 'application/json');
  });
});

describe('CORS with OAuth, credentials, and without the option', () => {
  test('a preflight needs no token; a 401 is readable with its challenge; credentials when asked for', async () => {
    let handler!: StreamableHTTPHandler;
    const served = await serveOn((req, res) => handler.node()(req, res));
    handler = new StreamableHTTPHandler(createDemoServer(), {
      cors: { origins: [PAGE], credentials: true, maxAgeSeconds: 60, allowHeaders: ['X-Api-Key'] },
      auth: new ProtectedResource({
        resource: served.url,
        authorizationServers: ['https://auth.example.com'],
        verifier: { verify: () => undefined },
      }),
    });
    try {
      const pre = await preflight(served.url, PAGE, 'authorization,content-type,x-api-key');
      assert.equal(pre.status, 204);
      assert.equal(pre.headers.get('access-control-allow-credentials'), 'true');
      assert.equal(pre.headers.get('access-control-max-age'), '60');
      assert.deepEqual(allowedHeaders(pre), [...CORS_REQUEST_HEADERS, 'X-Api-Key']);

      const refused = await post(served.url, initializeRequest(), { headers: { origin: PAGE } });
      assert.equal(refused.status, 401);
      assert.equal(refused.headers.get('access-control-allow-origin'), PAGE);
      assert.equal(refused.headers.get('access-control-allow-credentials'), 'true');
      assert.match(refused.headers.get('access-control-expose-headers') ?? '', /WWW-Authenticate/);
      assert.match(refused.headers.get('www-authenticate') ?? '', /^Bearer resource_metadata=/);
      await refused.body?.cancel();
    } finally {
      await handler.close({ deadlineMs: 0 });
      await served.close();
    }
  });

  test('without `cors` nothing changes: a preflight gets 405, answers carry no CORS header and no Vary', async () => {
    const handler = new StreamableHTTPHandler(createDemoServer());
    const served = await serveOn(handler.node());
    try {
      const pre = await preflight(served.url, PAGE);
      assert.equal(pre.status, 405);
      assert.equal(pre.headers.get('access-control-allow-origin'), null);
      await pre.body?.cancel();
      const response = await post(served.url, initializeRequest(), { headers: { origin: PAGE } });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('access-control-allow-origin'), null);
      assert.equal(response.headers.get('vary'), null);
      await response.body?.cancel();
    } finally {
      await handler.close({ deadlineMs: 0 });
      await served.close();
    }
  });

  test('origins must be scheme://host[:port]: a wildcard, a path or none at all is refused', () => {
    for (const origins of [['*'], ['https://app.example.com/'], ['app.example.com'], []]) {
      assert.throws(() => new Cors({ origins }, 'POST'), TypeError, JSON.stringify(origins));
    }
    assert.ok(new Cors({ origins: ['http://localhost:*'] }, 'POST').allows('http://LOCALHOST:5173'));
  });
});

describe('CORS on the legacy HTTP+SSE handler', () => {
  const handler = new LegacySSEHandler(createDemoServer(), { cors: { origins: [PAGE] } });
  let served: Served;
  let base: string;

  before(async () => {
    served = await serveOn(handler.node());
    base = `http://127.0.0.1:${served.port}`;
  });
  after(async () => {
    await handler.close();
    await served.close();
  });

  test('the preflight of a POST to /messages names GET and POST; the stream and the 202 are readable', async () => {
    const pre = await preflight(`${base}/messages?sessionId=x`, PAGE, 'content-type');
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-methods'), 'GET, POST');

    const controller = new AbortController();
    const stream = await fetch(`${base}/sse`, {
      headers: { origin: PAGE, accept: 'text/event-stream' },
      signal: controller.signal,
    });
    try {
      assert.equal(stream.status, 200);
      assert.equal(stream.headers.get('access-control-allow-origin'), PAGE);
      const reader = stream.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      const endpoint = /data: (\S+)/.exec(first)?.[1];
      assert.ok(endpoint, first);
      const accepted = await post(
        new URL(endpoint, base).href,
        { jsonrpc: '2.0', method: 'notifications/x' },
        {
          headers: { origin: PAGE },
        },
      );
      assert.equal(accepted.status, 202);
      assert.equal(accepted.headers.get('access-control-allow-origin'), PAGE);
      await accepted.body?.cancel();
    } finally {
      controller.abort();
    }
  });
});
