#!/usr/bin/env node
// One tools/call traced through mcpwire's own code: which functions of the built library run, how often,
// in how many files and folders, from the first byte read to the last byte written. V8's precise
// coverage with call counts is read after a warm-up call, reset, and read again around one call.
//
//   npm run build && node bench/trace-call.mjs sse|json|modern [--list] [--path] [--lib DIR/index.js]
//
// sse: a 2025 session, the answer as an SSE stream; json: the same, one JSON body; modern: a 2026-07-28
// request (no session). --list prints each function with its count, file by file, in the order first run.
// --path prints the way the call goes through the library: the stack that reaches the tool (from the HTTP
// request read) and the one that writes the answer (from the tool's result), outermost first, each frame as
// folder/file › function, with how many files and folder crossings each way takes.
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: a, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    list: { type: 'boolean', default: false },
    path: { type: 'boolean', default: false },
    lib: { type: 'string' },
  },
});
const mode = positionals[0] ?? 'sse';
if (!['sse', 'json', 'modern'].includes(mode))
  throw new Error(`mode must be sse, json or modern, not ${mode}`);
const lib = a.lib === undefined ? new URL('../dist/index.js', import.meta.url) : pathToFileURL(a.lib);
const root = path.dirname(fileURLToPath(lib));

const inspector = new Session();
inspector.connect();
await inspector.post('Profiler.enable');
await inspector.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });

// --path: the stacks of the traced call, at the tool and at the response's end
let tracing = false;
const stacks = {};
const stackHere = () => {
  const holder = {};
  Error.stackTraceLimit = Number.POSITIVE_INFINITY;
  Error.captureStackTrace(holder);
  return holder.stack;
};
const endResponse = http.ServerResponse.prototype.end;
http.ServerResponse.prototype.end = function (...args) {
  if (tracing) stacks.answer ??= stackHere();
  return endResponse.apply(this, args);
};

const { Server, StreamableHTTPHandler } = await import(lib.href);
const server = new Server({ name: 'trace', version: '0.0.0' });
server.tool(
  { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  ({ text }) => {
    if (tracing) stacks.tool ??= stackHere();
    return { content: [{ type: 'text', text }] };
  },
);
const handler = new StreamableHTTPHandler(server, { jsonResponse: mode === 'json' });
const httpServer = http.createServer(handler.node());
await new Promise((r) => httpServer.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${httpServer.address().port}/mcp`;

const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
let sessionId;
async function send(message, extra = {}) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...extra,
  };
  if (sessionId) headers['mcp-session-id'] = sessionId;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(message) });
  sessionId ??= res.headers.get('mcp-session-id') ?? undefined;
  const body = await res.text();
  if (!res.ok) throw new Error(`${message.method}: HTTP ${res.status} ${body}`);
  return body;
}

let id = 0;
function call() {
  const params = { name: 'echo', arguments: { text: 'hi' } };
  if (mode !== 'modern')
    return send(
      { jsonrpc: '2.0', id: ++id, method: 'tools/call', params },
      { 'mcp-protocol-version': LEGACY },
    );
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return send(
    { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { ...params, _meta: meta } },
    { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
  );
}

if (mode !== 'modern') {
  await send({
    jsonrpc: '2.0',
    id: ++id,
    method: 'initialize',
    params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'trace', version: '0' } },
  });
  await send({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-protocol-version': LEGACY });
}
for (let i = 0; i < 3; i++) await call(); // warm: lazy paths taken once, not counted
await inspector.post('Profiler.takePreciseCoverage'); // resets the counts
tracing = true;
const answer = await call();
tracing = false;
const { result } = await inspector.post('Profiler.takePreciseCoverage');
await inspector.post('Profiler.stopPreciseCoverage');
if (!answer.includes('"hi"')) throw new Error(`the call did not answer: ${answer}`);

// A function ran in this call when its own range counted > 0; nested ranges are its blocks, not calls.
const ran = [];
for (const script of result) {
  if (!script.url.startsWith('file:')) continue;
  const file = fileURLToPath(script.url);
  if (!file.startsWith(root + path.sep)) continue;
  for (const fn of script.functions) {
    const count = fn.ranges[0].count;
    if (count > 0 && fn.functionName !== '')
      ran.push({ file: path.relative(root, file), name: fn.functionName, count });
    else if (count > 0 && fn.ranges[0].startOffset > 0)
      ran.push({ file: path.relative(root, file), name: '(anonymous)', count });
  }
}
const files = [...new Set(ran.map((f) => f.file))];
const folders = new Set(files.map((f) => path.dirname(f)));
const calls = ran.reduce((s, f) => s + f.count, 0);
console.log(
  `${mode}: ${ran.length} functions, ${calls} calls, ${files.length} files, ${folders.size} folders`,
);
if (a.list)
  for (const file of files) {
    console.log(`  ${file}`);
    for (const f of ran.filter((r) => r.file === file)) console.log(`    ${f.count}× ${f.name}`);
  }
if (a.path)
  for (const [way, stack] of [
    ['request read → tool', stacks.tool],
    ['tool result → answer written', stacks.answer],
  ]) {
    // Library frames only, outermost first: `at fn (file:///…/x.js:1:2)` or `at file:///…/x.js:1:2`.
    const frames = [];
    for (const line of (stack ?? '').split('\n').reverse()) {
      const m = line.match(/at (?:async )?(?:(.+?) \()?(file:\/\/[^)]+?):\d+:\d+\)?$/);
      if (!m) continue;
      const file = fileURLToPath(m[2]);
      if (file.startsWith(root + path.sep))
        frames.push({ file: path.relative(root, file), fn: m[1] ?? '(top)' });
    }
    const crossings = frames.filter(
      (f, i) => i > 0 && path.dirname(f.file) !== path.dirname(frames[i - 1].file),
    );
    const wayFiles = new Set(frames.map((f) => f.file));
    console.log(
      `${way}: ${frames.length} frames, ${wayFiles.size} files, ${crossings.length} folder crossings`,
    );
    for (const f of frames) console.log(`    ${f.file} › ${f.fn}`);
  }
httpServer.closeAllConnections();
httpServer.close();
await handler.close?.();
process.exit(0);
