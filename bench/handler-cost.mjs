#!/usr/bin/env node
// What mcpwire's StreamableHTTPHandler does for one tools/call, with no socket: the handler is given exchanges
// of its own interface, each holding the POST's headers and body, and answers into them. It prints the time and
// the bytes allocated per call, beside the work the checking ceiling does for the same message (its checks,
// JSON.parse and JSON.stringify: bench/lib/required-checks.mjs). Quick and quiet enough to A/B a change of shape
// (--lib); what a call costs a server on a socket is for compare.mjs to say.
//
//   node bench/handler-cost.mjs [--mode stateless|json|modern] [--calls 10000] [--rounds 7] [--lib DIR/index.js]
// Time is measured first; then one more round runs under V8's sampling heap profiler (every 128 bytes, objects a
// scavenge collected included), for the bytes allocated.
//
// With --serve it is a server instead, for compare.mjs: it answers every POST with the echo tool's result as the
// plain ceiling does. With --beside, each POST also has mcpwire's handler serve one tools/call of that mode (into
// an exchange no one reads), so that compare.mjs tells what the handler's work costs beside node:http's, against
// the same server without it. --adapter writes the answer through mcpwire's node:http adapter instead of the
// response's own methods.
//
//   node bench/handler-cost.mjs --serve --port 3000 [--beside stateless|json|modern] [--adapter]
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ECHO_TOOL, echo } from './lib/echo-tool.mjs';
import { checkHead, checkMessage, VERSIONS } from './lib/required-checks.mjs';

const { values: a } = parseArgs({
  options: {
    mode: { type: 'string', default: 'stateless' },
    calls: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '7' },
    lib: { type: 'string' },
    serve: { type: 'boolean', default: false },
    port: { type: 'string', default: '3000' },
    beside: { type: 'string' },
    adapter: { type: 'boolean', default: false },
  },
});
const MODES = ['stateless', 'json', 'modern'];
const mode = a.serve ? a.beside : a.mode;
if (mode !== undefined && !MODES.includes(mode))
  throw new Error(`mode must be one of ${MODES.join(', ')}, not ${mode}`);
const lib = a.lib === undefined ? new URL('../dist/index.js', import.meta.url) : pathToFileURL(a.lib);
const { Server, StreamableHTTPHandler } = await import(lib.href);

const MODERN_VERSION = '2026-07-28';
const TEXT = 'x'.repeat(64);
const HEADERS = {
  host: '127.0.0.1:3000',
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'handler-cost', version: '0.1.0' },
};

/** An exchange with nothing under it: the request is what it was made with, the answer is kept to be read. */
class CapturedExchange {
  principal = undefined;
  scopes = undefined;
  status = 0;
  responseHeaders = {};
  body = undefined;
  headWritten = false;
  closed = false;
  listeners = undefined;
  constructor(headers, text) {
    this.headers = headers;
    this.text = text;
  }
  get method() {
    return 'POST';
  }
  get target() {
    return '/mcp';
  }
  get path() {
    return '/mcp';
  }
  get query() {
    return new URLSearchParams();
  }
  get authority() {
    return undefined;
  }
  get remoteAddress() {
    return '127.0.0.1';
  }
  get rawHeaders() {
    return this.headers;
  }
  get bytesBuffered() {
    return 0;
  }
  header(name) {
    return this.headers[name];
  }
  readBody(_limit, onBody) {
    onBody(this.text);
  }
  writeHead(status, headers) {
    this.status = status;
    if (headers !== undefined) Object.assign(this.responseHeaders, headers);
    this.headWritten = true;
  }
  setResponseHeader(name, value) {
    this.responseHeaders[name.toLowerCase()] = value;
  }
  flushHeaders() {
    this.headWritten = true;
  }
  write(chunk) {
    this.body = (this.body ?? '') + chunk;
    return true;
  }
  onDrain() {}
  flushed() {
    return undefined;
  }
  end(body) {
    if (body !== undefined) this.body = (this.body ?? '') + body;
    this.headWritten = true;
    this.destroy();
  }
  destroy() {
    if (this.closed) return;
    this.closed = true;
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners !== undefined) for (const listener of listeners) listener();
  }
  onClose(listener) {
    if (this.closed) listener();
    else {
      this.listeners ??= [];
      this.listeners.push(listener);
    }
  }
}

/** A handler as bench/server.mjs makes it, and a function that serves one tools/call body through it. */
async function mcpwire(mode) {
  const server = new Server({ name: 'handler-cost', version: '0.1.0' });
  server.tool(ECHO_TOOL, echo);
  const handler = new StreamableHTTPHandler(server, { stateless: mode === 'stateless', jsonResponse: true });
  const post = async (headers, message) => {
    const exchange = new CapturedExchange(headers, JSON.stringify(message));
    await handler.handle(exchange);
    return exchange;
  };
  let headers = { ...HEADERS, 'mcp-protocol-version': mode === 'modern' ? MODERN_VERSION : '2025-11-25' };
  if (mode === 'modern') headers = { ...headers, 'mcp-method': 'tools/call', 'mcp-name': 'echo' };
  if (mode === 'json') {
    const params = {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    };
    const init = await post(HEADERS, { jsonrpc: '2.0', id: 0, method: 'initialize', params });
    const sessionId = init.responseHeaders['mcp-session-id'];
    if (sessionId === undefined) throw new Error(`initialize failed: HTTP ${init.status} ${init.body}`);
    headers = { ...headers, 'mcp-session-id': sessionId };
    await post(headers, { jsonrpc: '2.0', method: 'notifications/initialized' });
  }
  return (text) => {
    const exchange = new CapturedExchange(headers, text);
    handler.handle(exchange);
    return exchange;
  };
}

const call = (id, modern) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"${TEXT}"}${
    modern ? `,"_meta":${JSON.stringify(ENVELOPE)}` : ''
  }}}`;

/**
 * The checking ceiling's work for one POST (ceiling.mjs --checks, with --modern for the 2026 era): its checks, the
 * parse, the envelope's version, the answer's serialization.
 */
const MODERN_VERSIONS = new Set([MODERN_VERSION]);
const MODERN_META = { 'io.modelcontextprotocol/serverInfo': { name: 'ceiling', version: '0.0.0' } };
// node:http has parsed the headers before the ceiling runs: they are made once here.
const CEILING_REQ = {
  headers: { ...HEADERS, 'mcp-protocol-version': mode === 'modern' ? MODERN_VERSION : '2025-11-25' },
};
function ceiling(text) {
  const modern = mode === 'modern';
  const msg = JSON.parse(text);
  const problem = checkHead(CEILING_REQ, 3000, modern ? MODERN_VERSIONS : VERSIONS) ?? checkMessage(msg);
  if (problem !== undefined) throw new Error(problem.message);
  const result = { content: [{ type: 'text', text: msg.params.arguments.text }] };
  if (modern) {
    if (msg.params._meta?.['io.modelcontextprotocol/protocolVersion'] !== MODERN_VERSION)
      throw new Error('version');
    result.resultType = 'complete';
    result._meta = MODERN_META;
  }
  return JSON.stringify({ jsonrpc: '2.0', id: msg.id, result });
}

/** Bytes allocated while `run` runs, as V8's sampling heap profiler counts them. */
async function allocated(run) {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 128,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  run();
  const { profile } = await session.post('HeapProfiler.stopSampling');
  session.disconnect();
  const total = (node) => node.selfSize + node.children.reduce((sum, child) => sum + total(child), 0);
  return total(profile.head);
}

/** Median µs per call over rounds, then bytes allocated per call over one more round. */
async function measure(serve, calls, rounds) {
  let id = 1;
  const batch = () => Array.from({ length: calls }, () => call(id++, mode === 'modern'));
  for (const text of batch()) serve(text);
  const us = [];
  for (let r = 0; r < rounds; r++) {
    const texts = batch();
    const t0 = process.hrtime.bigint();
    for (const text of texts) serve(text);
    us.push(Number(process.hrtime.bigint() - t0) / 1e3 / calls);
    await new Promise((resolve) => setImmediate(resolve));
  }
  const texts = batch();
  const bytes = await allocated(() => {
    for (const text of texts) serve(text);
  });
  return { us: us.sort((x, y) => x - y)[us.length >> 1], bytes: bytes / calls };
}

if (a.serve) {
  const beside = mode === undefined ? undefined : await mcpwire(mode);
  let besideId = 1;
  const fromNode = a.adapter
    ? (await import(new URL('./http/node-adapter.js', lib).href)).fromNode
    : undefined;
  const answer = (text) => {
    const msg = JSON.parse(text);
    const echoed = msg.params?.arguments?.text ?? '';
    return JSON.stringify({
      jsonrpc: '2.0',
      id: msg.id,
      result: { content: [{ type: 'text', text: echoed }] },
    });
  };
  const server = http.createServer((req, res) => {
    const served = (text) => {
      if (beside !== undefined) {
        const exchange = beside(call(besideId++, mode === 'modern'));
        if (exchange.status !== 200) throw new Error(`mcpwire answered ${exchange.status}: ${exchange.body}`);
      }
      return answer(text);
    };
    if (fromNode !== undefined) {
      const exchange = fromNode(req, res);
      exchange.readBody(
        4 << 20,
        (text) => {
          exchange.writeHead(200, { 'content-type': 'application/json' });
          exchange.end(served(text));
        },
        () => exchange.destroy(),
      );
      return;
    }
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = served(Buffer.concat(chunks).toString());
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.listen(Number(a.port), '127.0.0.1', () =>
    console.log(`handler-cost server on http://127.0.0.1:${a.port}/mcp (beside: ${mode ?? 'nothing'})`),
  );
  process.on('SIGTERM', () => process.exit(0));
} else {
  const serve = await mcpwire(mode);
  const probe = serve(call(0, mode === 'modern'));
  const result = JSON.parse(probe.body ?? '{}').result;
  if (probe.status !== 200 || result?.content?.[0]?.text !== TEXT) {
    throw new Error(`mcpwire did not answer the call: HTTP ${probe.status} ${probe.body}`);
  }
  const calls = Number(a.calls);
  const rounds = Number(a.rounds);
  const ours = await measure(serve, calls, rounds);
  const theirs = await measure(ceiling, calls, rounds);
  const kb = (b) => `${(b / 1024).toFixed(2)} KB`;
  console.log(
    `${mode}: mcpwire's handler ${ours.us.toFixed(2)} µs and ${kb(ours.bytes)} per call; ` +
      `the checking ceiling's work ${theirs.us.toFixed(2)} µs and ${kb(theirs.bytes)} (${calls} calls, median of ${rounds} rounds)`,
  );
  process.exit(0);
}
