// StreamableHTTPHandler with `auth`: what a client without a token, with a bad one, with too few scopes, and
// with a good one sees, and that a session belongs to whoever's token opened it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDemoServer } from '../../demo/demo-server.js';
import { ProtectedResource, type TokenGrant } from '../../http/protected-resource.js';
import { initializeRequest, post, type Served, serveOn, toolCall } from '../../test-support/mcp-http.js';
import { StreamableHTTPHandler } from './streamable-http-handler.js';

/** The JSON-RPC error of a refusal's body. */
const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { code: number; message: string } }).error;

const GRANTS: Record<string, TokenGrant> = {
  'ada-token': { principal: 'ada', scopes: ['mcp:tools'] },
  'bob-token': { principal: 'bob', scopes: ['mcp:tools', 'extra'] },
  'narrow-token': { principal: 'carl', scopes: ['profile'] },
};

describe('StreamableHTTPHandler with a ProtectedResource', () => {
  let served: Served;
  let resource: ProtectedResource;
  let handler: StreamableHTTPHandler;
  const errors: Error[] = [];

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  before(async () => {
    served = await serveOn((req, res) => {
      if (req.url === resource.metadataPath) resource.node()(req, res);
      else handler.node()(req, res);
    });
    resource = new ProtectedResource({
      resource: served.url,
      authorizationServers: ['https://auth.example.com'],
      requiredScopes: ['mcp:tools'],
      verifier: {
        verify: (token) => {
          if (token === 'outage') throw new Error('the authorization server is unreachable');
          return GRANTS[token];
        },
      },
    });
    handler = new StreamableHTTPHandler(createDemoServer(), {
      auth: resource,
      onerror: (e) => errors.push(e),
    });
  });
  after(async () => {
    await handler.close({ deadlineMs: 0 });
    await served.close();
  });

  test('the metadata names the resource, its authorization servers and scopes; anyone may read it', async () => {
    assert.equal(resource.metadataPath, '/.well-known/oauth-protected-resource/mcp');
    const response = await fetch(resource.metadataUrl);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
    assert.deepEqual(await response.json(), {
      resource: served.url,
      authorization_servers: ['https://auth.example.com'],
      scopes_supported: ['mcp:tools'],
      bearer_methods_supported: ['header'],
    });
  });

  test('no token: 401, a challenge naming the metadata and the scopes, a JSON-RPC error saying what to do', async () => {
    const response = await post(served.url, initializeRequest());
    assert.equal(response.status, 401);
    assert.equal(
      response.headers.get('www-authenticate'),
      `Bearer resource_metadata="${resource.metadataUrl}", scope="mcp:tools"`,
    );
    const error = await errorOf(response);
    assert.equal(error.code, -32000);
    assert.match(error.message, /needs an OAuth access token \(Authorization: Bearer …\)/);
    assert.equal(handler.sessionCount, 0);
  });

  test('a token the verifier does not grant, or another scheme: 401 invalid_token', async () => {
    const bad = await post(served.url, initializeRequest(), { headers: bearer('forged') });
    assert.equal(bad.status, 401);
    assert.match(
      bad.headers.get('www-authenticate')!,
      /^Bearer error="invalid_token", .*resource_metadata="/,
    );
    await bad.text();
    const basic = await post(served.url, initializeRequest(), { headers: { authorization: 'Basic eDp5' } });
    assert.equal(basic.status, 401);
    assert.match((await errorOf(basic)).message, /must be "Bearer" and an access token/);
  });

  test('a token without the required scope: 403 insufficient_scope asking for it', async () => {
    const response = await post(served.url, initializeRequest(), { headers: bearer('narrow-token') });
    assert.equal(response.status, 403);
    assert.equal(
      response.headers.get('www-authenticate'),
      `Bearer error="insufficient_scope", scope="profile mcp:tools", resource_metadata="${resource.metadataUrl}"`,
    );
    assert.match((await errorOf(response)).message, /lacks the scope mcp:tools/);
  });

  test('a token the verifier cannot check (its authorization server is down): 503, no challenge', async () => {
    const response = await post(served.url, initializeRequest(), { headers: bearer('outage') });
    assert.equal(response.status, 503);
    assert.equal(response.headers.get('www-authenticate'), null);
    assert.equal(response.headers.get('retry-after'), '5');
    assert.match(
      (await errorOf(response)).message,
      /could not be checked \(the authorization server is unreachable\)/,
    );
  });

  test("a granted token opens a session; another principal's token cannot use it", async () => {
    const opened = await post(served.url, initializeRequest(), { headers: bearer('ada-token') });
    assert.equal(opened.status, 200);
    const sessionId = opened.headers.get('mcp-session-id')!;
    await opened.text();
    const own = await post(served.url, toolCall(1, 'add', { a: 1, b: 2 }), {
      sessionId,
      headers: bearer('ada-token'),
    });
    assert.equal(own.status, 200);
    assert.match(await own.text(), /"text":"3"/);
    const other = await post(served.url, toolCall(2, 'add', { a: 1, b: 2 }), {
      sessionId,
      headers: bearer('bob-token'),
    });
    assert.equal(other.status, 404);
    await other.text();
    // Every refusal reached onerror.
    assert.ok(errors.some((e) => /lacks the scope/.test(e.message)));
  });
});
