// The requests the HTTP intake fuzz sends (test/fuzz/http-intake.property.test.ts), and a raw node:http client for
// them: fetch refuses some hostile headers, and node's client sends latin1 bytes as they are.
import { type IncomingHttpHeaders, request } from 'node:http';
import { MetaKey } from '../../src/protocol/envelope.js';
import { fc } from '../../src/test-support/fuzz.js';
import { ACCEPT_BOTH, parseSse } from '../../src/test-support/mcp-http.js';

/** How long an answer may take; an SSE answer is read for its head and what follows at once. */
export const ANSWER_MS = 5000;
export const SSE_WINDOW_MS = 80;

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Sent {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body: Buffer | undefined;
  chunked: boolean;
}

/** Sends one request; rejects when no whole answer (or, for SSE, no head) came within ANSWER_MS. */
export function send(port: number, r: Sent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // Framed as a correct client frames a body (a GET's body is otherwise sent unframed: node's parser, not the
    // handler, would refuse what follows as a second request).
    const chunked = r.body !== undefined && r.chunked && r.body.length > 1;
    const framing =
      r.body === undefined
        ? {}
        : chunked
          ? { 'transfer-encoding': 'chunked' }
          : { 'content-length': String(r.body.length) };
    const headers = { ...r.headers, ...framing };
    const req = request({ host: '127.0.0.1', port, path: r.path, method: r.method, headers, agent: false });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer within ${ANSWER_MS} ms: a hang`));
    }, ANSWER_MS);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('error', () => {});
      const done = () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode!, headers: res.headers, body });
        req.destroy();
      };
      res.on('end', done);
      if ((res.headers['content-type'] ?? '').startsWith('text/event-stream'))
        setTimeout(done, SSE_WINDOW_MS);
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    if (chunked) {
      req.write(r.body!.subarray(0, r.body!.length >> 1));
      req.end(r.body!.subarray(r.body!.length >> 1));
    } else req.end(r.body);
  });
}

/** A GET kept open whose text accumulates, e.g. a legacy session's stream. */
export function openStream(port: number, path: string, headers: Record<string, string>) {
  let text = '';
  const req = request({
    host: '127.0.0.1',
    port,
    path,
    headers: { accept: 'text/event-stream', ...headers },
  });
  req.on('response', (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      text += chunk;
    });
    res.on('error', () => {});
  });
  req.on('error', () => {});
  req.end();
  return { text: () => text, close: () => req.destroy() };
}

/** The SSE event ids in `text`. */
export const eventIds = (text: string) => parseSse(text).flatMap((e) => (e.id === undefined ? [] : [e.id]));

/** Latin1 header values node's client will send: tab, visible ASCII, space, 0x80–0xFF. */
const oddValue = fc.string({
  unit: fc
    .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(9))
    .map((c) => String.fromCharCode(c)),
  maxLength: 24,
});
/** Mostly one of `values`, sometimes odd bytes. */
const usually = (...values: string[]) =>
  fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...values) }, { weight: 1, arbitrary: oddValue });

const TOOLS = [
  'echo',
  'add',
  'toggle_tool',
  'touch_readme',
  'sample',
  'list_roots',
  'elicit_name',
  'long_running',
  'nope',
];
const METHODS = [
  ...'initialize notifications/initialized ping tools/list tools/call resources/list resources/read'.split(
    ' ',
  ),
  ...'resources/subscribe prompts/get completion/complete logging/setLevel notifications/cancelled'.split(
    ' ',
  ),
  ...'server/discover subscriptions/listen __proto__'.split(' '),
];
const fuzzId = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 8 }),
  fc.constantFrom<unknown>(null, 1.5, 2 ** 60),
);
const params = fc.oneof(
  fc.record({
    name: fc.constantFrom(...TOOLS),
    arguments: fc.oneof(
      fc.record({ message: fc.string() }),
      fc.record({ a: fc.integer(), b: fc.jsonValue() }),
      fc.record({ duration: fc.constantFrom(0, 0.01, 3600), steps: fc.constantFrom(1, 1000) }),
      fc.jsonValue(),
    ),
  }),
  fc.record({ uri: fc.constantFrom('demo://readme', 'demo://items/7', 'file:///etc/passwd') }),
  fc.record({ name: fc.constant('greet'), arguments: fc.record({ name: fc.string() }) }),
  fc.record({
    protocolVersion: fc.constantFrom('2025-11-25', '2024-11-05', '2026-07-28', 'x'),
    capabilities: fc.constant({}),
    clientInfo: fc.constant({ name: 'fuzz', version: '1' }),
  }),
  fc.record({ level: fc.constantFrom('debug', 'bogus') }),
  fc.record({ notifications: fc.constantFrom({ toolsListChanged: true }, {}, 'x') }),
  fc.record({ requestId: fuzzId }),
  fc.jsonValue({ maxDepth: 2 }),
);
const meta = fc.record(
  {
    [MetaKey.ProtocolVersion]: fc.constantFrom('2026-07-28', '2026-07-28', '2025-11-25', 'v9'),
    [MetaKey.ClientCapabilities]: fc.constantFrom<unknown>({}, { elicitation: {} }, null),
    [MetaKey.ClientInfo]: fc.constant({ name: 'fuzz', version: '1' }),
  },
  { requiredKeys: [MetaKey.ProtocolVersion] },
);
/** A message of either era that a real client could almost have sent; responses too (to server requests). */
const message = fc.oneof(
  fc.record(
    { jsonrpc: fc.constant('2.0'), id: fuzzId, method: fc.constantFrom(...METHODS), params },
    { requiredKeys: ['jsonrpc', 'method'] },
  ),
  fc.tuple(fc.constantFrom(...METHODS), fuzzId, params, meta).map(([method, id, p, m]) => ({
    jsonrpc: '2.0',
    id,
    method,
    params: { ...(typeof p === 'object' && p !== null && !Array.isArray(p) ? p : {}), _meta: m },
  })),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fuzzId,
    result: fc.constantFrom({}, { action: 'decline' }, { roots: [] }),
  }),
);
const body = fc.oneof(
  { weight: 5, arbitrary: message.map((m) => Buffer.from(JSON.stringify(m))) },
  {
    weight: 1,
    arbitrary: fc.array(message, { minLength: 1, maxLength: 3 }).map((m) => Buffer.from(JSON.stringify(m))),
  },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v))) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** `[name, value]` `present` times in `present + absent`, else null (the header is left out). */
const sometimes = <T>(present: number, absent: number, name: string, value: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: present, arbitrary: value.map((v) => [name, v] as const) },
    { weight: absent, arbitrary: fc.constant(null) },
  );

/** The ids and paths of the victim's (ada's) and of the fuzzer's own (bob's) sessions, found during setup. */
export interface Known {
  /** The fuzzer's own Authorization header (bob's token). */
  authorization: string;
  adaSession: string;
  adaEvents: string[];
  adaLegacy: string;
  bobSession: string;
  bobEvents: string[];
  bobLegacy: string;
}

export function requests(k: Known): fc.Arbitrary<Sent> {
  const sessionId = fc.oneof(
    { weight: 4, arbitrary: fc.constant(k.bobSession) },
    { weight: 2, arbitrary: fc.constant(k.adaSession) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        k.adaLegacy,
        '',
        ` ${k.adaSession} `,
        k.adaSession.toUpperCase(),
        `${k.bobSession},${k.adaSession}`,
      ),
    },
    { weight: 1, arbitrary: oddValue },
    { weight: 1, arbitrary: fc.constant<string | string[]>([k.bobSession, k.adaSession]) },
  );
  const lastEventId = fc.oneof(
    fc.constantFrom(...k.adaEvents, ...k.bobEvents, '_0', '0', `${k.adaEvents[0].split('_')[0]}_99999`),
    fc
      .tuple(fc.constantFrom(...k.bobEvents), fc.constantFrom(...k.adaEvents))
      .map(([b, a]) => `${b.split('.')[0]}.${a.split('.').slice(1).join('.')}`),
    oddValue,
  );
  // Each header present with its own odds: the outer guards (Host, Origin, token) refuse early, so they are rare.
  const headers = fc
    .tuple(
      sometimes(
        1,
        11,
        'authorization',
        usually(
          'Bearer nope',
          'Bearer ',
          `${k.authorization} x`,
          k.authorization.toLowerCase(),
          'Basic Ym9iOmJvYg==',
        ),
      ),
      sometimes(
        1,
        4,
        'content-type',
        usually(
          'application/json; charset=utf-8',
          'text/plain',
          'application/json; charset=latin1',
          'application/jsonx',
          '',
          ';;',
          'multipart/form-data; boundary=x',
        ),
      ),
      sometimes(
        1,
        4,
        'accept',
        usually(
          'text/event-stream',
          'application/json',
          '*/*',
          '',
          'text/html',
          'application/json;q=0, text/event-stream;q=0',
        ),
      ),
      sometimes(2, 1, 'mcp-session-id', sessionId),
      sometimes(
        1,
        1,
        'mcp-protocol-version',
        usually('2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2026-07-28', '', 'garbage'),
      ),
      sometimes(1, 2, 'mcp-method', usually('tools/call', 'initialize', 'server/discover', '')),
      sometimes(1, 2, 'mcp-name', usually('echo', 'greet', '=?base64?ZWNobw==?=', '=?base64?!!?=')),
      sometimes(1, 2, 'mcp-param-region', oddValue),
      sometimes(1, 1, 'last-event-id', lastEventId),
      sometimes(1, 11, 'host', usually('evil.example', 'localhost', '127.0.0.1:1', '')),
      sometimes(1, 11, 'origin', usually('http://evil.example', 'null', 'http://localhost:3000')),
      sometimes(1, 11, 'content-encoding', usually('gzip', 'identity')),
    )
    .map((pairs) => Object.fromEntries(pairs.filter((p) => p !== null)));
  // Mostly a method each path serves, so that requests get past the 405; sometimes any with any.
  const odd = fc.constantFrom('PUT', 'PATCH', 'OPTIONS', 'HEAD', 'PROPFIND', 'PURGE');
  const target: fc.Arbitrary<[string, string]> = fc.oneof(
    {
      weight: 5,
      arbitrary: fc.tuple(
        fc.constant('/mcp'),
        fc.constantFrom('POST', 'POST', 'POST', 'GET', 'GET', 'DELETE'),
      ),
    },
    { weight: 1, arbitrary: fc.tuple(fc.constant('/sse'), fc.constant('GET')) },
    {
      weight: 2,
      arbitrary: fc.tuple(
        fc.constantFrom(`/messages?sessionId=${k.bobLegacy}`, `/messages?sessionId=${k.adaLegacy}`),
        fc.constant('POST'),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.constantFrom(
          '/mcp',
          '/sse',
          '/messages',
          '/messages?sessionId=',
          `/messages?sessionId=x&sessionId=${k.adaLegacy}`,
          `/sse?sessionId=${k.adaLegacy}`,
          '/',
          '/mcp?x=%00',
          '//mcp',
          '/mcp/../sse',
          '/%2e%2e/mcp',
        ),
        fc.oneof(fc.constantFrom('POST', 'GET', 'DELETE'), odd),
      ),
    },
  );
  // Headers a correct client would send come first, so that many requests get past the outer guards.
  const correct = {
    authorization: k.authorization,
    'content-type': 'application/json',
    accept: ACCEPT_BOTH,
  };
  return fc
    .record({
      target,
      random: headers,
      keepCorrect: fc.oneof(
        { weight: 7, arbitrary: fc.constant(true) },
        { weight: 1, arbitrary: fc.constant(false) },
      ),
      body,
      chunked: fc.boolean(),
    })
    .map(({ target: [path, method], random, keepCorrect, body, chunked }) => ({
      method,
      path,
      headers: keepCorrect ? { ...correct, ...random } : random,
      body,
      chunked,
    }));
}
