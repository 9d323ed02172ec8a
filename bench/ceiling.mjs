#!/usr/bin/env node
import { randomUUID } from 'node:crypto';
// The "physical ceiling": plain node:http that reads each POST body, JSON.parses it and writes a
// fixed-shape JSON-RPC result. No MCP logic, no validation beyond a session-id map lookup. It
// answers just enough for the bench scenarios (echo, blob, broadcast) so the same load can be
// pointed at it; what it measures is Node's HTTP transport floor on this machine.
//   node ceiling.mjs [--port 3000] [--sse] [--state] [--modern]
//   --sse: answer every request as a one-event SSE stream
//   --state: keep, per session, what MCP requires a server to remember (the negotiated version and the
//   client's capabilities and info, as parsed from initialize): the floor of memory for a stateful server
//   --modern: serve every POST as a 2026-07-28 request, with no session: check the envelope in params._meta
//   and the headers that mirror it, then answer a complete result stamped with the server's info
//   --checks: also check of each POST what the spec asks a server to (lib/required-checks.mjs: Host and Origin,
//   media types, version, body size, JSON-RPC shape, params, tool input against its schema, a session id on each
//   request but initialize, no two requests in flight with one id); implies --state
//   --stateless (with --checks): requests need no session, as a stateless server serves them
//   --resumable: do what resumable streams ask of a server (lib/resumable-log.mjs): each SSE event has an id of its
//   stream's own and is kept for a client that resumes; an SSE answer (--sse) and a GET stream begin with a priming
//   event; a broadcast skips a session whose log level is above it and ends a stream whose reader fell 4 MiB behind;
//   implies --state
//   --spin-ns N: a broadcast busy-waits N ns more for each stream it writes to: a loop made slower on purpose, for
//   what a slower broadcast loop costs the time until every stream has the event (fan-out)
import http from 'node:http';
import { checkHead, checkMessage, negotiate, tooLarge, VERSIONS } from './lib/required-checks.mjs';
import { ResumableLog, writeResumable } from './lib/resumable-log.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? dflt : process.argv[i + 1];
};
const PORT = Number(arg('--port', process.env.PORT ?? 3000));
const SSE = process.argv.includes('--sse');
const MODERN = process.argv.includes('--modern');
const CHECKS = process.argv.includes('--checks');
const RESUMABLE = process.argv.includes('--resumable');
const STATE = process.argv.includes('--state') || CHECKS || RESUMABLE;
const STATELESS = process.argv.includes('--stateless');
const SPIN_NS = BigInt(arg('--spin-ns', '0'));
const log = RESUMABLE ? new ResumableLog() : undefined;
let streamsOpened = 0;
const PRIMING = 'retry: 1000\ndata: \n\n';

// id -> standalone GET stream (ServerResponse) or null; with --state, a record holding it as `stream`
const sessions = new Map();
const streamOf = (value) => (STATE ? value.stream : value);
const setStream = (sid, res) => {
  if (STATE) sessions.get(sid).stream = res;
  else sessions.set(sid, res);
};
const blobs = new Map();
const INIT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: {}, logging: {} },
  serverInfo: { name: 'ceiling', version: '0.0.0' },
};

function spin(ns) {
  const until = process.hrtime.bigint() + ns;
  while (process.hrtime.bigint() < until);
}

function reply(res, id, result, extraHeaders) {
  const body = JSON.stringify({ jsonrpc: '2.0', id, result });
  if (SSE) {
    let frame = `event: message\ndata: ${body}\n\n`;
    if (log !== undefined) {
      const stream = log.open(`p${streamsOpened++}`);
      frame = `id: ${log.append(stream, '')}\n${PRIMING}id: ${log.append(stream, body)}\n${frame}`;
      log.close(stream);
    }
    res.writeHead(200, {
      ...extraHeaders,
      'content-type': 'text/event-stream',
      'content-length': Buffer.byteLength(frame),
    });
    res.end(frame);
  } else {
    res.writeHead(200, {
      ...extraHeaders,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  }
}

function refuse(res, status, id, code, message) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: { code, message } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function toolResult(name, args) {
  switch (name) {
    case 'echo':
      return { content: [{ type: 'text', text: args.text }] };
    case 'blob': {
      const size = args.size | 0;
      if (!blobs.has(size)) blobs.set(size, 'x'.repeat(size));
      return { content: [{ type: 'text', text: blobs.get(size) }] };
    }
    case 'broadcast': {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: { nonce: args.nonce } },
      });
      const frame = `event: message\ndata: ${body}\n\n`;
      let n = 0;
      for (const value of sessions.values()) {
        const res = streamOf(value);
        if (!res) continue;
        if (log === undefined) res.write(frame);
        else if (!writeResumable(log, value, res, body, frame)) continue;
        if (SPIN_NS > 0n) spin(SPIN_NS);
        n++;
      }
      return { content: [{ type: 'text', text: String(n) }] };
    }
    case 'gc': // only with node --expose-gc; lets `sessions --gc-tool gc` read a post-GC heap figure
      globalThis.gc?.();
      return { content: [{ type: 'text', text: JSON.stringify(process.memoryUsage()) }] };
    default:
      return { content: [] };
  }
}

const MODERN_VERSION = '2026-07-28';
const MODERN_VERSIONS = new Set([MODERN_VERSION]);
const MODERN_META = { 'io.modelcontextprotocol/serverInfo': { name: 'ceiling', version: '0.0.0' } };

const OWS = /^[ \t]+|[ \t]+$/g;
const SENTINEL_START = '=?base64?';
const SENTINEL_END = '?=';
const UTF8 = new TextDecoder('utf-8', { fatal: true });
/** What a plain (not base64) header value may hold: visible ASCII, space and tab. */
const PLAIN_VALUE = /^[\x20-\x7e\t]*$/;

/**
 * A mirrored header's value as the text it stands for, as the spec asks a server to read it: spaces and tabs
 * around it trimmed, the `=?base64?…?=` form decoded (canonical base64 of UTF-8 only). Undefined when it is
 * absent or not valid: bad base64 or UTF-8, or a plain value with a character a header may not hold.
 */
function headerText(raw) {
  if (raw === undefined) return undefined;
  const value = raw.replace(OWS, '');
  if (
    value.startsWith(SENTINEL_START) &&
    value.endsWith(SENTINEL_END) &&
    value.length >= SENTINEL_START.length + SENTINEL_END.length
  ) {
    const encoded = value.slice(SENTINEL_START.length, -SENTINEL_END.length);
    const bytes = Buffer.from(encoded, 'base64');
    if (bytes.toString('base64') !== encoded) return undefined;
    try {
      return UTF8.decode(bytes);
    } catch {
      return undefined;
    }
  }
  return PLAIN_VALUE.test(value) ? value : undefined;
}

/**
 * A modern request, checked as little as the spec lets a server: the envelope is there, the headers agree
 * with the body (version, method, tool name), the version is served. Then the result, with no session.
 */
function onModernPost(req, res, msg) {
  const meta = msg.params?._meta;
  const version = meta?.['io.modelcontextprotocol/protocolVersion'];
  if (typeof version !== 'string' || typeof meta['io.modelcontextprotocol/clientCapabilities'] !== 'object')
    return refuse(res, 400, msg.id, -32602, 'Invalid _meta envelope');
  const h = req.headers;
  if (
    h['mcp-protocol-version']?.replace(OWS, '') !== version ||
    h['mcp-method']?.replace(OWS, '') !== msg.method ||
    (msg.method === 'tools/call' && headerText(h['mcp-name']) !== msg.params.name)
  )
    return refuse(res, 400, msg.id, -32020, 'Headers and body disagree');
  if (version !== MODERN_VERSION) return refuse(res, 400, msg.id, -32022, 'Unsupported protocol version');
  if (msg.id === undefined) return res.writeHead(202).end();
  const result = msg.method === 'tools/call' ? toolResult(msg.params.name, msg.params.arguments ?? {}) : {};
  result.resultType = 'complete';
  result._meta = MODERN_META;
  reply(res, msg.id, result);
}

function onPost(req, res, raw) {
  let msg;
  try {
    msg = JSON.parse(raw);
  } catch {
    res
      .writeHead(400, { 'content-type': 'application/json' })
      .end('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
    return;
  }
  if (CHECKS) {
    const problem = checkMessage(msg);
    if (problem !== undefined) return refuse(res, problem.status, msg?.id, problem.code, problem.message);
  }
  if (MODERN) return onModernPost(req, res, msg);
  const sid = req.headers['mcp-session-id'];
  if (sid !== undefined && !sessions.has(sid)) {
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end('{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}');
    return;
  }
  if (CHECKS && !STATELESS && sid === undefined && msg.method !== 'initialize')
    return refuse(res, 400, msg.id, -32000, 'Mcp-Session-Id header required');
  if (msg.id === undefined) {
    res.writeHead(202).end();
    return;
  } // notification
  if (msg.method === 'initialize') {
    const id = randomUUID();
    const { protocolVersion, capabilities, clientInfo } = msg.params ?? {};
    const record = CHECKS
      ? {
          stream: null,
          protocolVersion: negotiate(protocolVersion),
          capabilities,
          clientInfo,
          inFlight: new Set(),
        }
      : { stream: null, protocolVersion, capabilities, clientInfo };
    // The level logging/setLevel would set (debug: all), and the GET stream's events.
    if (RESUMABLE) Object.assign(record, { minLevel: 0, events: undefined });
    sessions.set(id, STATE ? record : null);
    reply(res, msg.id, CHECKS ? { ...INIT, protocolVersion: record.protocolVersion } : INIT, {
      'mcp-session-id': id,
    });
    return;
  }
  const inFlight = CHECKS && sid !== undefined ? sessions.get(sid).inFlight : undefined;
  if (inFlight?.has(msg.id)) return refuse(res, 200, msg.id, -32600, 'Request id already in use');
  inFlight?.add(msg.id);
  const result = msg.method === 'tools/call' ? toolResult(msg.params.name, msg.params.arguments ?? {}) : {};
  reply(res, msg.id, result);
  inFlight?.delete(msg.id);
}

const server = http.createServer((req, res) => {
  if (req.method === 'POST') {
    const problem = CHECKS ? checkHead(req, PORT, MODERN ? MODERN_VERSIONS : VERSIONS) : undefined;
    if (problem !== undefined) return refuse(res, problem.status, null, problem.code, problem.message);
    const chunks = [];
    let size = 0;
    // The plain ceiling's reader stays as it was: only the checking one counts bytes.
    const counted = (c) => {
      chunks.push(c);
      size += c.length;
      if (tooLarge(size)) {
        refuse(res.setHeader('connection', 'close'), 413, null, -32000, 'Body too large');
        req.destroy();
      }
    };
    req.on('data', CHECKS ? counted : (c) => chunks.push(c));
    req.on('end', () =>
      onPost(req, res, chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString()),
    );
    return;
  }
  const sid = req.headers['mcp-session-id'];
  if (!sessions.has(sid)) {
    res.writeHead(404).end();
    return;
  }
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (log !== undefined) {
      const record = sessions.get(sid);
      if (record.events !== undefined) log.close(record.events);
      record.events = log.open(`g${streamsOpened++}`);
      res.write(`id: ${log.append(record.events, '')}\n${PRIMING}`);
    } else res.flushHeaders();
    setStream(sid, res);
    res.on('close', () => {
      if (sessions.has(sid) && streamOf(sessions.get(sid)) === res) setStream(sid, null);
    });
  } else if (req.method === 'DELETE') {
    streamOf(sessions.get(sid))?.end();
    sessions.delete(sid);
    res.writeHead(200).end();
  } else {
    res.writeHead(405).end();
  }
});
server.keepAliveTimeout = 65_000;
server.listen(PORT, '127.0.0.1', () =>
  console.log(
    `ceiling listening on http://127.0.0.1:${PORT}/mcp${SSE ? ' (sse)' : ''}${MODERN ? ' (modern)' : ''}`,
  ),
);
process.on('SIGTERM', () => process.exit(0));
