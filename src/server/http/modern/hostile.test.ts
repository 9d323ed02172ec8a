import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MetaKey } from '../../../protocol/envelope.js';
import { eraOf } from '../../../protocol/versions.js';
import { fc, fuzzRuns } from '../../../test-support/fuzz.js';
import { ACCEPT_BOTH, type Served, SSEReader, serveOn } from '../../../test-support/mcp-http.js';
import { Server } from '../../server.js';
import { StreamableHTTPHandler } from '../streamable-http-handler.js';

/*
 * Hostile modern traffic: whatever a client POSTs (random _meta, methods, params, header values, huge
 * strings, text that is not JSON), the handler answers with a JSON-RPC message and a 2xx or 4xx status,
 * echoes the id when it could read one, and the process keeps running.
 */

const METHODS = [
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/read',
  'resources/list',
  'prompts/get',
  'subscriptions/listen',
  'initialize',
  'ping',
  'notifications/cancelled',
  'logging/setLevel',
  'completion/complete',
  '__proto__',
  'constructor',
];
const VERSIONS = ['2026-07-28', 'v999.0.0', '2025-11-25', '', '2026-07-28 '];

/** Header values node's HTTP client accepts: visible ASCII and spaces, trimmed by nothing. */
const headerValue = fc.oneof(
  fc.constantFrom(...VERSIONS, ...METHODS, 'echo', 'greet', '=?base64?ZWNobw==?=', '=?base64?!!?='),
  fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,40}$/),
);

/** Mostly `likely`, sometimes anything at all. */
const mostly = <T>(likely: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 8, arbitrary: likely }, { weight: 1, arbitrary: fc.anything() });

const id = fc.oneof(
  { weight: 4, arbitrary: fc.integer() },
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, undefined, 1.5, true) },
);

const meta = fc.record(
  {
    [MetaKey.ProtocolVersion]: mostly(fc.constantFrom(...VERSIONS)),
    [MetaKey.ClientCapabilities]: mostly(
      fc.constantFrom({}, { elicitation: {} }, { sampling: { tools: {} }, roots: {} }),
    ),
    [MetaKey.ClientInfo]: mostly(fc.constant({ name: 'fuzz', version: '1' })),
    [MetaKey.LogLevel]: mostly(fc.constantFrom('debug', 'error')),
    progressToken: mostly(fc.oneof(fc.string(), fc.integer())),
  },
  { requiredKeys: [MetaKey.ProtocolVersion, MetaKey.ClientCapabilities] },
);

const params = mostly(
  fc.record(
    {
      _meta: mostly(meta),
      name: mostly(fc.constantFrom('echo', 'greet', 'nope')),
      uri: mostly(fc.constantFrom('demo://readme', 'demo://missing')),
      arguments: mostly(fc.dictionary(fc.constantFrom('region', 'x', '__proto__'), fc.anything())),
      notifications: mostly(fc.constantFrom({ toolsListChanged: true }, { promptsListChanged: true }, {})),
      requestState: mostly(fc.string()),
      inputResponses: fc.anything(),
    },
    { requiredKeys: ['_meta'] },
  ),
);

const message = fc.record(
  {
    jsonrpc: mostly(fc.constant('2.0')),
    id,
    method: mostly(fc.constantFrom(...METHODS)),
    params,
  },
  { requiredKeys: ['jsonrpc', 'method'] },
);

const body = fc.oneof(
  { weight: 8, arbitrary: message },
  { weight: 1, arbitrary: fc.array(message, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(message, fc.integer({ min: 10_000, max: 300_000 }))
      .map(([m, n]) => ({ ...m, params: { ...(m.params as object), huge: 'x'.repeat(n) } })),
  },
);

const headers = fc.record(
  {
    'mcp-protocol-version': headerValue,
    'mcp-method': headerValue,
    'mcp-name': headerValue,
    'mcp-param-region': headerValue,
    'mcp-session-id': headerValue,
  },
  { requiredKeys: [] },
);

const SAFE_HEADER = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * The headers of one POST: random ones, over which (when `mirror`) the headers a correct client would send
 * are laid, so that many requests get past the header rungs to the deeper ones.
 */
function headersFor(sent: unknown, random: Record<string, string>, mirror: boolean): Record<string, string> {
  if (!mirror || typeof sent !== 'object' || sent === null || Array.isArray(sent)) return random;
  const m = sent as { method?: unknown; params?: any };
  const out = { ...random };
  const version = m.params?._meta?.[MetaKey.ProtocolVersion];
  const name = m.params?.name ?? m.params?.uri;
  const region = m.params?.arguments?.region;
  for (const [key, value] of [
    ['mcp-protocol-version', version],
    ['mcp-method', m.method],
    ['mcp-name', name],
    ['mcp-param-region', region],
  ] as const) {
    if (typeof value === 'string' && SAFE_HEADER.test(value)) out[key] = value;
    else delete out[key];
  }
  return out;
}

/**
 * The id a modern body carries (its _meta claims a version, or the header is modern), when a reader could
 * tell which one it is. The 2025 path's transport refusals (no session) answer with a null id, as 2025 had it.
 */
function readableModernId(text: string, versionHeader: string | undefined): unknown {
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const claimed = parsed.params?._meta?.[MetaKey.ProtocolVersion] !== undefined;
  if (!claimed && !(versionHeader !== undefined && eraOf(versionHeader) === 'modern')) return undefined;
  const value = parsed.id;
  return typeof value === 'string' || Number.isInteger(value) ? value : undefined;
}

/** The JSON-RPC answer of a response: the body, or the first SSE message with an id (then stops reading). */
async function answerOf(res: Response): Promise<any> {
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream'))
    return JSON.parse(await res.text());
  const reader = new SSEReader(res);
  try {
    for (;;) {
      const next = await reader.nextMessage();
      assert.ok(next !== undefined, 'an SSE answer ended without a response');
      // A listen stream's ack stands for its answer: the stream itself does not end.
      if ('id' in next.message || next.message.method === 'notifications/subscriptions/acknowledged') {
        return next.message;
      }
    }
  } finally {
    await reader.cancel();
  }
}

describe('hostile modern POSTs', () => {
  let served: Served;
  let handler: StreamableHTTPHandler;
  const internal: Error[] = [];

  before(async () => {
    const server = new Server({ name: 'hostile', version: '1.0.0' });
    server.tool(
      {
        name: 'echo',
        inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
      },
      (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }),
    );
    server.tool({ name: 'greet' }, async (_args, ctx) => {
      const reply = await ctx.elicit({
        message: 'name?',
        requestedSchema: { type: 'object', properties: {} },
      });
      return { content: [{ type: 'text', text: reply.action }] };
    });
    server.resource({ uri: 'demo://readme', name: 'readme' }, (uri) => ({ contents: [{ uri, text: 'hi' }] }));
    handler = new StreamableHTTPHandler(server, {
      onerror: (e) => {
        if (e.name !== 'HTTPRejectionError') internal.push(e);
      },
    });
    served = await serveOn(handler.node());
  });
  after(async () => {
    await handler.close({ deadlineMs: 0 });
    await served.close();
  });

  test('every answer is a JSON-RPC message with a 2xx or 4xx status, echoing a readable id', async () => {
    await fc.assert(
      fc.asyncProperty(body, headers, fc.boolean(), async (payload, random, mirror) => {
        const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
        const extra = headersFor(payload, random, mirror);
        const res = await fetch(served.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...extra },
          body: text,
          signal: AbortSignal.timeout(5000),
        });
        assert.ok(res.status >= 200 && res.status < 500, `status ${res.status} for ${text.slice(0, 200)}`);
        if (res.status === 202) {
          assert.equal(await res.text(), '');
          return;
        }
        const answer = await answerOf(res);
        assert.equal(answer.jsonrpc, '2.0');
        assert.ok('result' in answer || 'error' in answer || 'method' in answer, JSON.stringify(answer));
        if ('error' in answer) assert.equal(typeof answer.error.code, 'number');
        const sent = readableModernId(text, extra['mcp-protocol-version']);
        if (sent !== undefined && !('method' in answer))
          assert.deepEqual(answer.id, sent, JSON.stringify(answer));
      }),
      { ...fuzzRuns(200), interruptAfterTimeLimit: 60_000 },
    );
    assert.deepEqual(
      internal.map((e) => e.message),
      [],
      'no handler failed inside',
    );
  });
});
