// OAuthClient against an authorization server and an MCP server that wants its tokens, both on loopback.
// The official conformance suite checks the same flow against its own mocks (scripts/conformance-client.sh);
// these tests pin what it does not: one authorization for concurrent refusals, the refresh token, the
// store, and the refusals that keep a token from going where it must not.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, beforeEach, describe, test } from 'node:test';
import { Client } from '../../client/client.js';
import { createDemoServer } from '../../demo/demo-server.js';
import { type LoopbackServer, listenLoopback, readBody } from '../../test-support/http-loopback.js';
import { toolText } from '../../test-support/tool-text.js';
import { StreamableHttpClientConnection } from '../streamable/client-transport.js';
import { StreamableHTTPHandler } from '../streamable/handler.js';
import { OAuthClient, type OAuthClientOptions, type OAuthState } from './oauth-client.js';
import { OAuthError } from './oauth-error.js';

/** What the authorization server saw, and what it can be told to do. */
interface Seen {
  authorizations: URLSearchParams[];
  tokenRequests: URLSearchParams[];
  registrations: number;
  /** Access tokens the MCP server accepts; a test removes one to make it expire. */
  valid: Set<string>;
  /** Requests that reached the MCP server, with the Authorization header they carried. */
  mcpAuthorization: Array<string | undefined>;
  /** Overrides of the metadata documents. */
  resource?: string;
  challengeMethods?: string[];
}

const seen: Seen = {
  authorizations: [],
  tokenRequests: [],
  registrations: 0,
  valid: new Set(),
  mcpAuthorization: [],
};
let challenge = '';
let issued = 0;

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
};

const as: LoopbackServer = await listenLoopback(async (req: IncomingMessage, res: ServerResponse) => {
  const url = new URL(req.url!, `http://${req.headers.host}`);
  const origin = `http://127.0.0.1:${as.port}`;
  if (url.pathname === '/.well-known/oauth-authorization-server') {
    return send(res, 200, {
      issuer: origin,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      registration_endpoint: `${origin}/register`,
      code_challenge_methods_supported: seen.challengeMethods ?? ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic'],
    });
  }
  if (url.pathname === '/register') {
    seen.registrations++;
    return send(res, 201, { client_id: 'registered', client_secret: 's3cret' });
  }
  if (url.pathname === '/authorize') {
    seen.authorizations.push(url.searchParams);
    challenge = url.searchParams.get('code_challenge') ?? '';
    const back = new URL(url.searchParams.get('redirect_uri')!);
    back.searchParams.set('code', 'the-code');
    back.searchParams.set('state', url.searchParams.get('state')!);
    res.writeHead(302, { location: back.href }).end();
    return;
  }
  if (url.pathname === '/token') {
    const body = new URLSearchParams(await readBody(req));
    body.set('authorization', req.headers.authorization ?? '');
    seen.tokenRequests.push(body);
    if (body.get('grant_type') === 'authorization_code') {
      const verified =
        createHash('sha256').update(body.get('code_verifier')!).digest('base64url') === challenge;
      if (!verified || body.get('code') !== 'the-code') return send(res, 400, { error: 'invalid_grant' });
    } else if (body.get('refresh_token') !== 'refresh-me') {
      return send(res, 400, { error: 'invalid_grant', error_description: 'unknown refresh token' });
    }
    const token = `token-${++issued}`;
    seen.valid.add(token);
    return send(res, 200, {
      access_token: token,
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: 'refresh-me',
    });
  }
  send(res, 404, {});
});

const handler = new StreamableHTTPHandler(createDemoServer());
const node = handler.node();
const mcp: LoopbackServer = await listenLoopback((req, res) => {
  const origin = `http://127.0.0.1:${mcp.port}`;
  if (req.url === '/.well-known/oauth-protected-resource/mcp') {
    return send(res, 200, {
      resource: seen.resource ?? `${origin}/mcp`,
      authorization_servers: [`http://127.0.0.1:${as.port}`],
      scopes_supported: ['mcp:tools'],
    });
  }
  const authorization = req.headers.authorization;
  seen.mcpAuthorization.push(authorization);
  const token = authorization?.startsWith('Bearer ') ? authorization.slice(7) : undefined;
  if (token === undefined || !seen.valid.has(token)) {
    return send(
      res,
      401,
      { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Unauthorized' } },
      { 'www-authenticate': 'Bearer error="invalid_token"' },
    );
  }
  node(req, res);
});
const serverUrl = () => `http://127.0.0.1:${mcp.port}/mcp`;

after(async () => {
  await handler.close({ deadlineMs: 0 });
  await mcp.close();
  await as.close();
});

beforeEach(() => {
  Object.assign(seen, {
    authorizations: [],
    tokenRequests: [],
    registrations: 0,
    mcpAuthorization: [],
    resource: undefined,
    challengeMethods: undefined,
  });
  seen.valid.clear();
});

/** An OAuthClient whose user approves at once: the authorization URL is fetched and its redirect returned. */
function oauth(options: Partial<OAuthClientOptions> = {}): OAuthClient {
  return new OAuthClient({
    redirectUri: 'http://127.0.0.1:1/callback',
    authorize: async (url) => {
      const response = await fetch(url, { redirect: 'manual' });
      await response.body?.cancel();
      return response.headers.get('location')!;
    },
    ...options,
  });
}

async function connect(auth: OAuthClient) {
  const client = new Client({ name: 'oauth-test', version: '1' }, { requestTimeout: 10_000 });
  return client.connect(new StreamableHttpClientConnection(serverUrl(), { fetch: auth.fetch }));
}

describe('OAuthClient', { timeout: 20_000 }, () => {
  test('a 401 leads to discovery, registration, PKCE authorization for the resource, and the call goes through', async () => {
    const session = await connect(oauth());
    assert.equal(toolText(await session.callTool('echo', { message: 'hi' })), 'Echo: hi');
    await session.close();

    assert.equal(seen.registrations, 1);
    assert.equal(seen.authorizations.length, 1);
    const query = seen.authorizations[0];
    assert.equal(query.get('response_type'), 'code');
    assert.equal(query.get('client_id'), 'registered');
    assert.equal(query.get('code_challenge_method'), 'S256');
    assert.equal(query.get('resource'), serverUrl());
    // No scope in the challenge: all the resource supports.
    assert.equal(query.get('scope'), 'mcp:tools');
    const [tokenRequest] = seen.tokenRequests;
    assert.equal(tokenRequest.get('resource'), serverUrl());
    assert.equal(
      tokenRequest.get('authorization'),
      `Basic ${Buffer.from('registered:s3cret').toString('base64')}`,
    );
    // The first request went without a token; every one after it carried the one issued.
    assert.equal(seen.mcpAuthorization[0], undefined);
    assert.ok(
      seen.mcpAuthorization.slice(1).every((a) => a === 'Bearer token-1'),
      String(seen.mcpAuthorization),
    );
  });

  test('a token refused later is refreshed once, however many requests were refused at once', async () => {
    const auth = oauth();
    const session = await connect(auth);
    const first = (await auth.tokens())?.access_token;
    seen.valid.clear();
    const results = await Promise.all(
      [1, 2, 3].map((i) => session.callTool('echo', { message: `m${i}` }).then(toolText)),
    );
    assert.deepEqual(results, ['Echo: m1', 'Echo: m2', 'Echo: m3']);
    assert.deepEqual(
      seen.tokenRequests.map((r) => r.get('grant_type')),
      ['authorization_code', 'refresh_token'],
    );
    assert.equal(seen.authorizations.length, 1);
    const now = (await auth.tokens())?.access_token;
    assert.ok(now !== first && seen.valid.has(now!), `${first} was replaced by a token the server accepts`);
    await session.close();
  });

  test('a store keeps the registration and the tokens for the next process', async () => {
    let kept: OAuthState | undefined;
    const store = {
      load: () => kept,
      save: (state: OAuthState) => {
        kept = state;
      },
    };
    const first = await connect(oauth({ store }));
    await first.close();
    const second = await connect(oauth({ store }));
    assert.equal(toolText(await second.callTool('echo', { message: 'again' })), 'Echo: again');
    await second.close();
    assert.equal(seen.registrations, 1);
    assert.equal(seen.authorizations.length, 1);
  });

  test('a user agent sent back with another state is not trusted: no code is redeemed', async () => {
    const auth = oauth({ authorize: async () => 'http://127.0.0.1:1/callback?code=stolen&state=other' });
    await assert.rejects(connect(auth), /does not carry the state of the request/);
    assert.equal(seen.tokenRequests.length, 0);
  });

  test('metadata for another resource stops before any authorization', async () => {
    seen.resource = 'https://elsewhere.example/mcp';
    await assert.rejects(connect(oauth()), (err: Error) => {
      assert.match(err.message, /is for https:\/\/elsewhere\.example\/mcp, which .* is not part of/);
      assert.ok(err.cause instanceof OAuthError, 'the transport passes the OAuthError on as the cause');
      return true;
    });
    assert.equal(seen.authorizations.length, 0);
  });

  test('an authorization server without PKCE S256 is not used', async () => {
    seen.challengeMethods = ['plain'];
    await assert.rejects(connect(oauth()), /does not offer PKCE with S256/);
    assert.equal(seen.authorizations.length, 0);
  });

  test('pre-registered credentials are used as they are; no registration', async () => {
    const session = await connect(oauth({ client: { client_id: 'mine', client_secret: 'p@ss:word' } }));
    await session.close();
    assert.equal(seen.registrations, 0);
    assert.equal(seen.authorizations[0].get('client_id'), 'mine');
    // RFC 6749 §2.3.1: the parts are form-encoded before they are joined.
    assert.equal(
      seen.tokenRequests[0].get('authorization'),
      `Basic ${Buffer.from('mine:p%40ss%3Aword').toString('base64')}`,
    );
  });
});
