// BearerTokens: the tokens it refuses to be made with, and what a client without a token, with a wrong one and
// with each of two tokens sees of both HTTP endpoints (Streamable HTTP in both eras, HTTP+SSE), on loopback.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { StreamableHTTPHandler } from '../server/http/streamable-http-handler.js';
import { Server } from '../server/server.js';
import { LegacySSEHandler } from '../server/sse/legacy-sse-handler.js';
import {
  initializeRequest,
  openSession,
  post,
  type Served,
  serveOn,
  toolCall,
} from '../test-support/mcp-http.js';
import { BearerTokens } from './bearer-tokens.js';

const ADA = 'a'.repeat(8) + '0123456789abcdef0123456789abcdef';
const BOB = 'Bob-token_with.all~chars+/0123456789==';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The JSON-RPC error of a refusal's body. */
const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { code: number; message: string } }).error;

describe('BearerTokens', () => {
  test('refuses tokens that are short, that no header could carry, given twice, or none at all', () => {
    assert.throws(() => new BearerTokens(['x'.repeat(31)]), /32 characters or more/);
    assert.throws(() => new BearerTokens([`${'x'.repeat(32)} y`]), /letters, digits and -\._~\+\//);
    assert.throws(() => new BearerTokens([`${'x'.repeat(32)}=x`]), /then = signs/);
    assert.throws(() => new BearerTokens([ADA, { token: ADA, principal: 'other' }]), /given twice/);
    assert.throws(() => new BearerTokens([{ token: ADA, principal: '' }]), /principal must not be empty/);
    assert.throws(() => new BearerTokens([]), /at least one token/);
  });

  test('a token is its principal, named by a digest that does not give it away', () => {
    const tokens = new BearerTokens([ADA, { token: BOB, principal: 'bob', scopes: ['admin'] }]);
    const ada = tokens.grantOf(ADA)!;
    assert.match(ada.principal, /^token:[0-9a-f]{12}$/);
    assert.ok(!ADA.includes(ada.principal.slice(6)));
    assert.deepEqual(ada.scopes, []);
    assert.deepEqual(tokens.grantOf(BOB), { principal: 'bob', scopes: ['admin'] });
    assert.equal(tokens.grantOf(ADA.slice(1)), undefined);
  });
});

describe('both HTTP endpoints behind BearerTokens', () => {
  let served: Served;
  let streamable: StreamableHTTPHandler;
  let legacy: LegacySSEHandler;
  const errors: Error[] = [];

  before(async () => {
    const server = new Server({ name: 'tokens', version: '1' });
    server.tool({ name: 'whoami' }, (_args, ctx) => ({
      content: [{ type: 'text', text: String(ctx.transport?.principal) }],
    }));
    server.tool({ name: 'wipe', access: { scopes: ['admin'] } }, () => ({ content: [] }));
    const auth = new BearerTokens([ADA, { token: BOB, principal: 'bob' }]);
    // A rate limit too: a request refused at once (not a promise) must not be counted or passed on.
    const options = { auth, rateLimit: { requests: 1000 }, onerror: (e: Error) => errors.push(e) };
    streamable = new StreamableHTTPHandler(server, options);
    legacy = new LegacySSEHandler(server, options);
    served = await serveOn((req, res) => {
      if (req.url === '/mcp') streamable.node()(req, res);
      else legacy.node()(req, res);
    });
  });
  after(async () => {
    await streamable.close({ deadlineMs: 0 });
    await legacy.close();
    await served.close();
  });

  test('no token: 401 with a plain Bearer challenge and a message saying whom to ask', async () => {
    const response = await post(served.url, initializeRequest());
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer');
    assert.match(
      (await errorOf(response)).message,
      /needs an access token \(Authorization: Bearer …\) from its operator/,
    );
  });

  test('another scheme, or a token that is not one of them: 401, the latter invalid_token', async () => {
    const basic = await post(served.url, initializeRequest(), { headers: { authorization: `Basic ${ADA}` } });
    assert.equal(basic.status, 401);
    assert.match((await errorOf(basic)).message, /must be "Bearer" and an access token/);
    const wrong = await post(served.url, initializeRequest(), { headers: bearer(`${ADA}x`) });
    assert.equal(wrong.status, 401);
    assert.match(wrong.headers.get('www-authenticate')!, /^Bearer error="invalid_token"/);
    assert.match((await errorOf(wrong)).message, /not one this server takes; ask its operator/);
  });

  test("a token's session is its own: the other token's requests find none", async () => {
    const session = await openSession(served.url, '2025-11-25', {}, bearer(ADA));
    const mine = await post(served.url, toolCall(1, 'whoami'), { sessionId: session, headers: bearer(ADA) });
    assert.equal(mine.status, 200);
    assert.match(await mine.text(), /token:[0-9a-f]{12}/);
    const theirs = await post(served.url, toolCall(2, 'whoami'), {
      sessionId: session,
      headers: bearer(BOB),
    });
    assert.equal(theirs.status, 404);
    await theirs.text();
  });

  test('a 2026 request is let in as its token, and a tool needing a scope the token lacks is 403', async () => {
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
    };
    const call = (name: string) => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: {}, _meta: envelope },
    });
    const headers = { ...bearer(BOB), 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' };
    const mine = await post(served.url, call('whoami'), { headers: { ...headers, 'mcp-name': 'whoami' } });
    assert.equal(mine.status, 200);
    assert.match(await mine.text(), /"text":"bob"/);
    const wipe = await post(served.url, call('wipe'), { headers: { ...headers, 'mcp-name': 'wipe' } });
    assert.equal(wipe.status, 403);
    assert.equal(wipe.headers.get('www-authenticate'), 'Bearer error="insufficient_scope", scope="admin"');
    await wipe.text();
  });

  test('the HTTP+SSE endpoint: no stream without a token, one with it', async () => {
    const refused = await fetch(new URL('/sse', served.url), { headers: { accept: 'text/event-stream' } });
    assert.equal(refused.status, 401);
    await refused.text();
    const controller = new AbortController();
    const stream = await fetch(new URL('/sse', served.url), {
      headers: { accept: 'text/event-stream', ...bearer(ADA) },
      signal: controller.signal,
    });
    assert.equal(stream.status, 200);
    controller.abort();
    await stream.body?.cancel().catch(() => {});
    assert.deepEqual(
      errors.filter((e) => e.name !== 'HTTPRejectionError'),
      [],
    );
  });
});
