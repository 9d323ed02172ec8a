// Fuzzing the HTTP intake of both eras (issue 13): the demo server behind a StreamableHTTPHandler and a
// LegacySSEHandler (both with OAuth, so sessions are bound to principals), on loopback. fast-check sends requests
// with node's raw http client (fetch refuses hostile headers): any method, path, header set (Content-Type, Accept,
// Mcp-Session-Id of nobody or of another principal's session, MCP-Protocol-Version, Mcp-Method, Mcp-Name,
// Mcp-Param-* with latin1 bytes, Last-Event-ID of another session's stream, Host, Origin) and body (bytes, JSON,
// near-valid messages of both eras). Each answer: below 500, complete within a bound, a JSON error is
// well-formed JSON-RPC, and no answer carries the marker only the victim's (ada's) traffic holds. Controls
// afterwards: ada still reads her marker (so the negative is not vacuous) and hears no one else's answers.
// Runs and seed: src/test-support/fuzz.ts (MCPWIRE_FUZZ_RUNS, MCPWIRE_FUZZ_SEED; default 200 runs).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createDemoServer } from '../../src/demo/demo-server.js';
import { fromNode } from '../../src/http/node-adapter.js';
import { ProtectedResource, type TokenGrant } from '../../src/http/protected-resource.js';
import { StreamableHTTPHandler } from '../../src/server/http/streamable-http-handler.js';
import type { ServerSession } from '../../src/server/legacy/server-session.js';
import { LegacySSEHandler } from '../../src/server/sse/legacy-sse-handler.js';
import { fc, fuzzRuns } from '../../src/test-support/fuzz.js';
import { ACCEPT_BOTH, openSession, parseSse, type Served, serveOn } from '../../src/test-support/mcp-http.js';
import { until } from '../../src/test-support/time-limit.js';
import { eventIds, type Known, openStream, requests, send } from './http-requests.js';

const MARKER = `SECRET-${randomBytes(8).toString('hex')}`;
const GRANTS: Record<string, TokenGrant> = {
  'ada-token': { principal: 'ada', scopes: [] },
  'bob-token': { principal: 'bob', scopes: [] },
};
const ADA = { authorization: 'Bearer ada-token' };
const BOB = { authorization: 'Bearer bob-token' };
/** A JSON-RPC error answer as the spec shapes it. */
function assertJsonRpcError(value: unknown, what: string): void {
  const v = value as { jsonrpc?: unknown; id?: unknown; error?: { code?: unknown; message?: unknown } };
  assert.equal(v?.jsonrpc, '2.0', what);
  assert.ok(v.id === null || typeof v.id === 'string' || Number.isInteger(v.id), `id of ${what}`);
  assert.ok(
    Number.isInteger(v.error?.code) && typeof v.error?.message === 'string' && v.error.message !== '',
    what,
  );
}

describe('HTTP intake of both eras, fuzzed', () => {
  let served: Served;
  let streamable: StreamableHTTPHandler;
  let legacy: LegacySSEHandler;
  const internal: Error[] = [];
  const streams: { close(): void }[] = [];
  let known: Known;
  let adaLegacyStream: { text(): string };

  before(async () => {
    const server = createDemoServer();
    let lastSession: ServerSession | undefined;
    server.onsession = (s) => {
      lastSession = s;
    };
    served = await serveOn((req, res) => {
      const exchange = fromNode(req, res);
      legacy.handle(exchange).then((handled) => {
        if (!handled) streamable.handle(exchange);
      });
    });
    const resource = new ProtectedResource({
      resource: served.url,
      authorizationServers: ['https://auth.example.com'],
      verifier: { verify: (token) => GRANTS[token] },
    });
    const onerror = (e: Error) => {
      if (e.name !== 'HTTPRejectionError') internal.push(e);
    };
    streamable = new StreamableHTTPHandler(server, { auth: resource, onerror, keepAliveMs: 0 });
    legacy = new LegacySSEHandler(server, { auth: resource, keepAliveMs: 0 });
    const port = served.port;
    const post = (path: string, auth: Record<string, string>, m: unknown, sessionId?: string) =>
      send(port, {
        method: 'POST',
        path,
        headers: {
          ...auth,
          'content-type': 'application/json',
          accept: ACCEPT_BOTH,
          ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
        },
        body: Buffer.from(JSON.stringify(m)),
        chunked: false,
      });
    const echo = (id: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: MARKER } },
    });

    // Ada's Streamable session: the marker on her GET stream (a log to her session alone) and on a POST stream.
    const adaSession = await openSession(served.url, '2025-11-25', {}, ADA);
    const adaServer = lastSession!;
    const adaGet = openStream(port, '/mcp', { ...ADA, 'mcp-session-id': adaSession });
    await until(() => eventIds(adaGet.text()).length > 0, 5000, "ada's priming event");
    await adaServer.log('info', MARKER);
    await until(() => adaGet.text().includes(MARKER), 5000, "ada's GET stream to carry the marker");
    adaGet.close();
    await adaServer.log('info', `${MARKER} while away`);
    const adaPost = await post('/mcp', ADA, echo('victim-1'), adaSession);
    assert.ok(adaPost.body.includes(MARKER));
    const bobSession = await openSession(served.url, '2025-11-25', {}, BOB);
    const bobPost = await post('/mcp', BOB, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, bobSession);

    // Legacy sessions: ada's stream stays open (her answers carry the marker), and one of bob's own.
    const legacySession = async (auth: Record<string, string>) => {
      const stream = openStream(port, '/sse', auth);
      streams.push(stream);
      await until(() => stream.text().includes('sessionId='), 5000, 'the endpoint event');
      const id = /sessionId=([\w-]+)/.exec(stream.text())![1];
      const path = `/messages?sessionId=${id}`;
      const init = {
        jsonrpc: '2.0',
        id: 'victim-0',
        method: 'initialize',
        params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'v', version: '1' } },
      };
      assert.equal((await post(path, auth, init)).status, 202);
      await until(() => stream.text().includes('"victim-0"'), 5000, 'the initialize answer');
      assert.equal(
        (await post(path, auth, { jsonrpc: '2.0', method: 'notifications/initialized' })).status,
        202,
      );
      return { id, stream, path };
    };
    const adaLegacy = await legacySession(ADA);
    await post(adaLegacy.path, ADA, echo('victim-2'));
    await until(() => adaLegacy.stream.text().includes(MARKER), 5000, "ada's legacy answer");
    adaLegacyStream = adaLegacy.stream;
    const bobLegacy = await legacySession(BOB);
    known = {
      authorization: BOB.authorization,
      adaSession,
      adaEvents: [...eventIds(adaGet.text()), ...eventIds(adaPost.body)],
      adaLegacy: adaLegacy.id,
      bobSession,
      bobEvents: eventIds(bobPost.body),
      bobLegacy: bobLegacy.id,
    };
    assert.ok(known.adaEvents.length >= 3 && known.bobEvents.length >= 1, JSON.stringify(known));
  });

  after(async () => {
    for (const s of streams) s.close();
    await streamable.close({ deadlineMs: 0 });
    await legacy.close();
    await served.close();
  });

  test("the cross-principal cases by name: bob gets 404 for ada's sessions, 400 for her event ids", async () => {
    const get = (sessionId: string, lastEventId?: string) =>
      send(served.port, {
        method: 'GET',
        path: '/mcp',
        headers: {
          ...BOB,
          accept: 'text/event-stream',
          'mcp-session-id': sessionId,
          ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
        },
        body: undefined,
        chunked: false,
      });
    for (const id of known.adaEvents) {
      const own = await get(known.bobSession, id);
      assert.equal(own.status, 400, own.body);
      assert.equal((await get(known.adaSession, id)).status, 404);
    }
    const legacyPost = await send(served.port, {
      method: 'POST',
      path: `/messages?sessionId=${known.adaLegacy}`,
      headers: { ...BOB, 'content-type': 'application/json' },
      body: Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}'),
      chunked: false,
    });
    assert.equal(legacyPost.status, 404);
  });

  test('no 5xx, no hang, well-formed JSON-RPC errors, and never the marker of another principal', async () => {
    const statuses = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(requests(known), async (r) => {
        const answer = await send(served.port, r);
        const key = `${answer.status} ${String(answer.headers['content-type']).split(';')[0]}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        const what = `${r.method} ${r.path} ${answer.status}: ${answer.body.slice(0, 300)}`;
        assert.ok(answer.status < 500, what);
        assert.ok(
          !answer.body.includes(MARKER) && !JSON.stringify(answer.headers).includes(MARKER),
          `leaked: ${what}`,
        );
        const type = answer.headers['content-type'] ?? '';
        if (r.method === 'HEAD' || answer.status === 204) return;
        if (answer.status >= 400)
          assert.match(type, /^application\/json/, `an error without a JSON-RPC body: ${what}`);
        if (!type.startsWith('application/json')) return;
        const value = JSON.parse(answer.body);
        if (answer.status >= 400) assertJsonRpcError(value, what);
        else for (const m of [value].flat()) assert.equal(m?.jsonrpc, '2.0', what);
      }),
      { ...fuzzRuns(200), includeErrorInReport: true },
    );
    // Controls: with her own token, ada still reads the marker from her stream, so the property was not vacuous.
    const replay = await send(served.port, {
      method: 'GET',
      path: '/mcp',
      headers: {
        ...ADA,
        accept: 'text/event-stream',
        'mcp-session-id': known.adaSession,
        'last-event-id': known.adaEvents[0],
      },
      body: undefined,
      chunked: false,
    });
    assert.equal(replay.status, 200);
    assert.ok(replay.body.includes(`${MARKER} while away`), replay.body);
    // Her legacy stream carries answers to her own requests only (bob's ids never start with "victim-").
    for (const e of parseSse(adaLegacyStream.text())) {
      const m = e.data.startsWith('{') ? JSON.parse(e.data) : undefined;
      if (m !== undefined && 'id' in m && !('method' in m)) assert.match(String(m.id), /^victim-/);
    }
    assert.deepEqual(
      internal.map((e) => e.message),
      [],
      'no handler failed inside',
    );
    if (process.env.MCPWIRE_FUZZ_VERBOSE)
      console.log(`statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
  });
});
