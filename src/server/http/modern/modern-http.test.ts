import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MetaKey } from '../../../protocol/envelope.js';
import { jsonBody, post, type Served, serveOn, sseMessages } from '../../../test-support/mcp-http.js';
import { modernHeaders, modernMessage, postModern } from '../../../test-support/modern-http.js';
import { Server } from '../../server.js';
import { StreamableHTTPHandler } from '../streamable-http-handler.js';

/*
 * The modern era over real HTTP: the spec's validation order with its exact status and code pairs
 * (streamable-http §Server Validation), and how a request is answered (JSON, or SSE once it notifies).
 */

function makeServer(): Server {
  const server = new Server({ name: 'modern-http', version: '1.0.0' });
  server.tool(
    { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    (args) => ({ content: [{ type: 'text', text: String(args.text) }] }),
  );
  server.tool(
    {
      name: 'weather',
      inputSchema: {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, days: { type: 'integer' } },
      },
    },
    (args) => ({ content: [{ type: 'text', text: `sunny in ${String(args.region)}` }] }),
  );
  server.tool({ name: 'steps', inputSchema: { type: 'object' } }, async (_args, ctx) => {
    await ctx.sendProgress(1, 2);
    await ctx.sendProgress(2, 2);
    return { content: [{ type: 'text', text: 'stepped' }] };
  });
  return server;
}

/** The JSON-RPC error of a refused response, after checking its status and that it echoes `id`. */
async function refused(res: Response, status: number, code: number, id: unknown): Promise<any> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  const body = JSON.parse(text);
  assert.equal(body.jsonrpc, '2.0');
  assert.equal(body.error?.code, code, text);
  assert.deepEqual(body.id, id, 'the error echoes the request id');
  assert.equal(res.headers.get('mcp-session-id'), null);
  return body.error;
}

describe('modern requests over HTTP: validation order', () => {
  let served: Served;
  const errors: Error[] = [];

  before(async () => {
    const handler = new StreamableHTTPHandler(makeServer(), { onerror: (e) => errors.push(e) });
    served = await serveOn(handler.node());
  });
  after(() => served.close());

  test('a valid request is answered with its result in the modern envelope', async () => {
    const res = await postModern(served.url, 1, 'tools/call', { name: 'echo', arguments: { text: 'hi' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(res.headers.get('mcp-session-id'), null);
    const body = await jsonBody(res);
    assert.equal(body.id, 1);
    assert.deepEqual(body.result.content, [{ type: 'text', text: 'hi' }]);
    assert.equal(body.result.resultType, 'complete');
    assert.deepEqual(body.result._meta[MetaKey.ServerInfo], { name: 'modern-http', version: '1.0.0' });
  });

  test('more Mcp-* headers than the bound (64): 431 before anything is read from them', async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 65; i++) many[`mcp-param-x${i}`] = 'v';
    const res = await postModern(served.url, 'h1', 'tools/list', {}, { headers: many });
    const error = await refused(res, 431, -32600, 'h1');
    assert.match(error.message, /Request Header Fields Too Large/);
    const fine = await postModern(served.url, 'h2', 'tools/list', {}, { headers: { 'mcp-param-x': 'v' } });
    assert.equal(fine.status, 200);
  });

  test('an envelope without clientCapabilities: 400 -32602 naming the key', async () => {
    const res = await postModern(
      served.url,
      'e1',
      'tools/list',
      {},
      { meta: { [MetaKey.ClientCapabilities]: undefined } },
    );
    const error = await refused(res, 400, -32602, 'e1');
    assert.deepEqual(error.data, { envelope: { key: MetaKey.ClientCapabilities, problem: 'missing' } });
  });

  test('a bad logLevel: 400 -32602', async () => {
    const res = await postModern(served.url, 2, 'tools/list', {}, { meta: { [MetaKey.LogLevel]: 'loud' } });
    const error = await refused(res, 400, -32602, 2);
    assert.equal(error.data.envelope.key, MetaKey.LogLevel);
  });

  test('a header that disagrees with the body version: 400 -32020, before the unsupported version', async () => {
    const res = await postModern(
      served.url,
      3,
      'tools/list',
      {},
      { meta: { [MetaKey.ProtocolVersion]: 'v999.0.0' } },
    );
    const error = await refused(res, 400, -32020, 3);
    assert.equal(error.data.mismatch.header, 'MCP-Protocol-Version');
    const absent = await postModern(
      served.url,
      4,
      'tools/list',
      {},
      { headers: { 'mcp-protocol-version': undefined } },
    );
    await refused(absent, 400, -32020, 4);
  });

  test('an unsupported version in both: 400 -32022 with supported and requested', async () => {
    const res = await postModern(
      served.url,
      5,
      'tools/list',
      {},
      { meta: { [MetaKey.ProtocolVersion]: 'v999.0.0' }, headers: { 'mcp-protocol-version': 'v999.0.0' } },
    );
    const error = await refused(res, 400, -32022, 5);
    assert.deepEqual(error.data, { supported: ['2026-07-28'], requested: 'v999.0.0' });
  });

  test('Mcp-Method absent or different from the body: 400 -32020', async () => {
    const wrong = await postModern(
      served.url,
      6,
      'tools/list',
      {},
      { headers: { 'mcp-method': 'tools/call' } },
    );
    assert.equal((await refused(wrong, 400, -32020, 6)).data.mismatch.header, 'Mcp-Method');
    const absent = await postModern(
      served.url,
      7,
      'tools/list',
      {},
      { headers: { 'mcp-method': undefined } },
    );
    await refused(absent, 400, -32020, 7);
  });

  for (const [method, params] of [
    [
      'initialize',
      { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    ],
    ['ping', {}],
    ['logging/setLevel', { level: 'info' }],
    ['resources/subscribe', { uri: 'demo://x' }],
    ['resources/unsubscribe', { uri: 'demo://x' }],
    ['no/such/method', {}],
  ] as const) {
    test(`${method}, removed or unknown in 2026-07-28: 404 -32601`, async () => {
      const res = await postModern(served.url, `m-${method}`, method, params);
      await refused(res, 404, -32601, `m-${method}`);
    });
  }

  test('a method whose capability the server does not advertise: 404 -32601', async () => {
    await refused(await postModern(served.url, 8, 'prompts/list'), 404, -32601, 8);
    await refused(await postModern(served.url, 9, 'resources/list'), 404, -32601, 9);
    await refused(await postModern(served.url, 10, 'completion/complete', {}), 404, -32601, 10);
  });

  test('invalid params: 400 -32602', async () => {
    const res = await postModern(
      served.url,
      11,
      'tools/call',
      { name: 42 },
      { headers: { 'mcp-name': '42' } },
    );
    await refused(res, 400, -32602, 11);
  });

  test('Mcp-Name absent or different: 400 -32020; base64-encoded and equal: served', async () => {
    const params = { name: 'echo', arguments: { text: 'x' } };
    const absent = await postModern(served.url, 12, 'tools/call', params, {
      headers: { 'mcp-name': undefined },
    });
    assert.equal((await refused(absent, 400, -32020, 12)).data.mismatch.header, 'Mcp-Name');
    const other = await postModern(served.url, 13, 'tools/call', params, {
      headers: { 'mcp-name': 'weather' },
    });
    await refused(other, 400, -32020, 13);
    const badBase64 = await postModern(served.url, 14, 'tools/call', params, {
      headers: { 'mcp-name': '=?base64?!!?=' },
    });
    await refused(badBase64, 400, -32020, 14);
    const encoded = `=?base64?${Buffer.from('echo').toString('base64')}?=`;
    const ok = await postModern(served.url, 15, 'tools/call', params, { headers: { 'mcp-name': encoded } });
    assert.equal(ok.status, 200);
    assert.equal((await jsonBody(ok)).result.content[0].text, 'x');
  });

  test('Mcp-Param-* of an x-mcp-header argument: absent or different 400 -32020; equal served', async () => {
    const params = { name: 'weather', arguments: { region: 'Zürich' } };
    const absent = await postModern(served.url, 16, 'tools/call', params);
    assert.equal((await refused(absent, 400, -32020, 16)).data.mismatch.header, 'Mcp-Param-Region');
    const other = await postModern(served.url, 17, 'tools/call', params, {
      headers: { 'mcp-param-region': 'Bern' },
    });
    await refused(other, 400, -32020, 17);
    const encoded = `=?base64?${Buffer.from('Zürich').toString('base64')}?=`;
    const ok = await postModern(served.url, 18, 'tools/call', params, {
      headers: { 'mcp-param-region': encoded },
    });
    assert.equal(ok.status, 200);
    assert.equal((await jsonBody(ok)).result.content[0].text, 'sunny in Zürich');
    // Without the argument, no header is needed; one sent anyway disagrees with the body.
    const none = await postModern(served.url, 19, 'tools/call', { name: 'weather', arguments: {} });
    assert.equal(none.status, 200);
    await none.text();
    const stray = await postModern(
      served.url,
      20,
      'tools/call',
      { name: 'weather', arguments: {} },
      { headers: { 'mcp-param-region': 'Bern' } },
    );
    await refused(stray, 400, -32020, 20);
  });

  test('a modern notification: 202 with no body', async () => {
    const res = await postModern(served.url, undefined, 'notifications/cancelled', { requestId: 1 });
    assert.equal(res.status, 202);
    assert.equal(await res.text(), '');
    assert.equal(res.headers.get('mcp-session-id'), null);
  });

  test('a batch with a modern element: 400 -32600', async () => {
    const batch = [modernMessage(21, 'tools/list'), { jsonrpc: '2.0', id: 22, method: 'tools/list' }];
    const res = await post(served.url, batch, { headers: modernHeaders('tools/list') });
    await refused(res, 400, -32600, null);
  });

  test('a claim-less request with a modern MCP-Protocol-Version header: 400 -32602', async () => {
    const res = await post(
      served.url,
      { jsonrpc: '2.0', id: 23, method: 'tools/list', params: {} },
      { headers: modernHeaders('tools/list') },
    );
    const error = await refused(res, 400, -32602, 23);
    assert.deepEqual(error.data, { envelope: { key: MetaKey.ProtocolVersion, problem: 'missing' } });
  });

  test('a claim-less initialize with a modern MCP-Protocol-Version header: 400 -32020', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 24,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    };
    await refused(await post(served.url, init, { headers: modernHeaders('initialize') }), 400, -32020, 24);
  });

  test('a tool that reports progress is answered over SSE: the progress, then the result', async () => {
    const res = await postModern(
      served.url,
      25,
      'tools/call',
      { name: 'steps', arguments: {} },
      { meta: { progressToken: 'p1' } },
    );
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const messages = await sseMessages(res);
    assert.deepEqual(
      messages.map((m) => m.method ?? 'result'),
      ['notifications/progress', 'notifications/progress', 'result'],
    );
    assert.equal(messages[0].params.progressToken, 'p1');
    assert.equal(messages[2].id, 25);
    assert.equal(messages[2].result.resultType, 'complete');
  });

  test('without a progressToken the same tool is answered with plain JSON', async () => {
    const res = await postModern(served.url, 26, 'tools/call', { name: 'steps', arguments: {} });
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal((await jsonBody(res)).result.content[0].text, 'stepped');
  });

  test('refusals reached onerror; nothing failed inside the handler', () => {
    assert.ok(errors.length > 0);
    for (const e of errors) assert.equal(e.name, 'HTTPRejectionError', e.message);
  });
});
