import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { McpError } from '../../jsonrpc/errors.js';
import { InvalidResponseError, ResponseLostError } from '../../peer/errors.js';
import { headerAnnotations } from '../../protocol/header-annotations.js';
import { checkMirroredHeaders, decodeHeaderValue, type HeaderLookup } from '../../protocol/mcp-headers.js';
import { fc, fuzzRuns } from '../../test-support/fuzz.js';
import {
  cut,
  error,
  openSse,
  result,
  type Script,
  type ScriptedServer,
  scriptedServer,
  sendJson,
  writeEvent,
} from '../../test-support/scripted-http.js';
import { until, within } from '../../test-support/time-limit.js';
import { Client, type ClientOptions } from '../client.js';
import type { ClientSession } from '../client-session.js';
import { StreamableHTTPError } from './http-client-errors.js';
import { ModernHTTPClientConnection } from './modern-http-client-connection.js';

/*
 * ModernHTTPClientConnection against a scripted server (spec 2026-07-28, Streamable HTTP): the mirrored headers,
 * invalid tools dropped, 4xx JSON-RPC errors as answers, a broken stream as a lost answer, and cancellation
 * as the closing of the request's stream.
 */

const SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    count: { type: 'integer', 'x-mcp-header': 'Count' },
    dry: { type: 'boolean', 'x-mcp-header': 'Dry' },
  },
};
const TOOLS = [
  { name: 'put', inputSchema: SCHEMA },
  // `number` may not be mirrored: the whole tool is invalid, and must be dropped.
  {
    name: 'bad',
    inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } },
  },
];

const lookup =
  (headers: IncomingHttpHeaders): HeaderLookup =>
  (name) => {
    const v = headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  };

async function open(script: Script, options: ClientOptions = {}) {
  const server = await scriptedServer((hit, res) => {
    const m = hit.message;
    if (m?.method === 'server/discover') {
      return sendJson(
        res,
        result(m.id, { supportedVersions: ['2026-07-28'], capabilities: { tools: {}, resources: {} } }),
      );
    }
    if (m?.method === 'tools/list') return sendJson(res, result(m.id, { tools: TOOLS }));
    return script(hit, res);
  });
  const errors: Error[] = [];
  const client = new Client(
    { name: 'conn-test', version: '1' },
    { requestTimeoutMs: 5000, onerror: (e) => errors.push(e), ...options },
  );
  const session = await within(client.connect(new ModernHTTPClientConnection(server.url)), 10_000, 'connect');
  return { server, session, errors };
}

describe('ModernHTTPClientConnection', () => {
  let server: ScriptedServer;
  let session: ClientSession;
  let errors: Error[];

  before(async () => {
    ({ server, session, errors } = await open(async (hit, res) => {
      const m = hit.message;
      const args = m?.params?.arguments ?? {};
      if (m?.method === 'resources/read') return sendJson(res, result(m.id, { contents: [] }));
      if (args.mode === 'json-error')
        return sendJson(res, error(m.id, -32602, 'Invalid params', { field: 'region' }), 400);
      if (args.mode === 'plain-409')
        return void res.writeHead(409, { 'content-type': 'text/plain' }).end('busy');
      if (args.mode === 'cut') {
        openSse(res, [
          { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
        ]);
        await new Promise((r) => setTimeout(r, 20));
        return cut(res);
      }
      if (args.mode === 'invalid') return sendJson(res, { jsonrpc: '2.0', id: m.id, result: 'done' });
      if (args.mode === 'hang') return; // held open until the client closes it
      if (args.mode === 'sse') {
        openSse(res);
        writeEvent(res, result(m.id, { content: [{ type: 'text', text: 'over sse' }] }));
        return void res.end();
      }
      sendJson(res, result(m.id, { content: [] }));
    }));
  });

  after(async () => {
    await session.close();
    await server.close();
  });

  test('drops the tool whose annotations are invalid, keeps the others, and warns', async () => {
    const { tools } = await session.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['put'],
    );
    assert.ok(errors.some((e) => /Tool "bad" was left out of tools\/list/.test(e.message)));
  });

  test('mirrors version, method, name and params; integers in decimal, booleans as words, others base64', async () => {
    await session.callTool('put', { region: ' eu-west ', count: 42, dry: false });
    const hit = server.posts('tools/call').at(-1)!;
    const h = hit.headers;
    assert.equal(h['mcp-protocol-version'], '2026-07-28');
    assert.equal(h['mcp-method'], 'tools/call');
    assert.equal(h['mcp-name'], 'put');
    assert.equal(h['mcp-param-region'], `=?base64?${Buffer.from(' eu-west ').toString('base64')}?=`);
    assert.equal(h['mcp-param-count'], '42');
    assert.equal(h['mcp-param-dry'], 'false');
    // What the server checks: the headers agree with the body.
    const check = checkMirroredHeaders(
      'tools/call',
      hit.message.params,
      lookup(h),
      headerAnnotations(SCHEMA),
    );
    assert.equal(check, undefined);

    await session.readResource('file:///tmp/ünï');
    const read = server.posts('resources/read').at(-1)!;
    assert.match(String(read.headers['mcp-name']), /^=\?base64\?.*\?=$/);
    assert.equal(decodeHeaderValue(String(read.headers['mcp-name'])), 'file:///tmp/ünï');
  });

  test('an absent or null argument gets no header', async () => {
    await session.callTool('put', { region: null, count: 1 });
    const h = server.posts('tools/call').at(-1)!.headers;
    assert.equal(h['mcp-param-region'], undefined);
    assert.equal(h['mcp-param-dry'], undefined);
    assert.equal(h['mcp-param-count'], '1');
  });

  test('a 4xx whose body is a JSON-RPC error is the answer, with its code and data', async () => {
    await assert.rejects(session.callTool('put', { mode: 'json-error' }), (err: McpError) => {
      assert.ok(err instanceof McpError);
      assert.equal(err.code, -32602);
      assert.deepEqual(err.data, { field: 'region' });
      return true;
    });
  });

  test('an answer that is not a valid response fails the call with -32603 saying why', async () => {
    await assert.rejects(
      session.callTool('put', { mode: 'invalid' }),
      (err: McpError) =>
        err instanceof InvalidResponseError &&
        err.code === -32603 &&
        err.problem === '"result" must be an object',
    );
  });

  test('a 4xx without a JSON-RPC body rejects with the status', async () => {
    await assert.rejects(
      session.callTool('put', { mode: 'plain-409' }),
      (err: StreamableHTTPError) => err instanceof StreamableHTTPError && err.status === 409,
    );
  });

  test('an SSE answer is read until its response', async () => {
    const r = await session.callTool('put', { mode: 'sse' });
    assert.deepEqual(r.content, [{ type: 'text', text: 'over sse' }]);
  });

  test('a stream cut before the answer: ResponseLostError, and the call (not repeatable) is not resent', async () => {
    const before = server.posts('tools/call').length;
    await assert.rejects(
      within(session.callTool('put', { mode: 'cut' }), 10_000, 'lost'),
      (err: Error) => err instanceof ResponseLostError && /may or may not have run/.test(err.message),
    );
    assert.equal(server.posts('tools/call').length, before + 1);
  });

  test("aborting a call closes its POST's connection, and posts no notifications/cancelled", async () => {
    const before = server.posts('tools/call').length;
    const controller = new AbortController();
    const call = session.callTool('put', { mode: 'hang' }, { signal: controller.signal });
    await until(() => server.posts('tools/call').length > before, 5000, 'the POST');
    controller.abort();
    await assert.rejects(call);
    const hit = server.posts('tools/call').at(-1)!;
    await within(hit.closed, 5000, 'the server to see the socket close');
    assert.equal(hit.aborted, true);
    assert.deepEqual(server.posts('notifications/cancelled'), []);
  });
});

describe('header mirroring round trip (property)', () => {
  let server: ScriptedServer;
  let session: ClientSession;
  const verdicts: Array<ReturnType<typeof checkMirroredHeaders>> = [];

  before(async () => {
    ({ server, session } = await open((hit, res) => {
      const m = hit.message;
      const annotations = m.method === 'tools/call' ? headerAnnotations(SCHEMA) : undefined;
      verdicts.push(checkMirroredHeaders(m.method, m.params, lookup(hit.headers), annotations));
      sendJson(res, result(m.id, m.method === 'resources/read' ? { contents: [] } : { content: [] }));
    }));
    await session.listTools();
  });

  after(async () => {
    await session.close();
    await server.close();
  });

  // Lone surrogates cannot be spelt in UTF-8 (the client writes U+FFFD), so the body and header would differ.
  const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' })).filter((s) => !/\p{Cs}/u.test(s));
  const hostile = fc.oneof(
    text,
    fc.constantFrom('=?base64?aGk=?=', ' lead', 'trail\t', 'a\r\nInjected: 1', '\u0000', '=?base64?', '?='),
  );

  test('any string, integer or boolean survives the wire and passes the server check', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostile,
        fc.maxSafeInteger(),
        fc.boolean(),
        hostile,
        async (region, count, dry, uri) => {
          verdicts.length = 0;
          await within(session.callTool('put', { region, count, dry }), 5000, 'call');
          await within(session.readResource(uri), 5000, 'read');
          assert.deepEqual(verdicts, [undefined, undefined]);
        },
      ),
      fuzzRuns(60),
    );
  });
});
