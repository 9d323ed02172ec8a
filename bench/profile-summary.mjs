#!/usr/bin/env node
// Summarizes a V8 CPU profile (`node --cpu-prof`) of the bench server by layer of mcpwire, and
// lists the top functions by self time. Each sample is charged to the innermost frame that is
// JavaScript of a layer we name (node-core frames go to their innermost named caller, so e.g. the
// socket work a `res.end` does is charged to whoever called it), except socket write syscalls,
// split out as a cost of their own (and listed by the library function that caused them).
// JSON.parse and JSON.stringify never appear as frames: V8 charges them to their caller.
//
//   node bench/profile-summary.mjs PROFILE.cpuprofile [--calls N] [--top 30] [--from-ms A --to-ms B]
//   --calls N: calls served while profiling, to print µs per call
//   --inclusive: also list library functions by inclusive time (self + callees)
//   --within NAME[@FILE]: only samples whose stack holds that function (e.g. a tool handler); GC and
//   idle samples are left out then, since they have no stack
//   --against OTHER.cpuprofile --against-calls M (with --calls N): each layer's µs per call beside another
//   profile's, and the difference: two servers profiled side by side (compare.mjs --paired), e.g. the ceiling
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: a, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    calls: { type: 'string' },
    top: { type: 'string', default: '30' },
    'from-ms': { type: 'string' },
    'to-ms': { type: 'string' },
    within: { type: 'string' },
    inclusive: { type: 'boolean', default: false },
    against: { type: 'string' },
    'against-calls': { type: 'string' },
  },
});
if (
  !positionals[0] ||
  (a.against !== undefined && (a.calls === undefined || a['against-calls'] === undefined))
) {
  console.error(
    'usage: node bench/profile-summary.mjs PROFILE.cpuprofile [--calls N] [--top 30] [--against OTHER --against-calls M]',
  );
  process.exit(1);
}

/** Layer of a frame by its script URL; undefined for node core and V8 builtins (charged to the caller). */
function layerOf(url) {
  if (!url || url.startsWith('node:')) return undefined;
  const rules = [
    [/\/ajv\/|\/ajv-formats\/|\/fast-uri\/|json-schema-traverse/, 'validation (ajv)'],
    [/\/server\/schema\.js/, 'validation (ajv)'],
    [/\/(dist|src)\/http\/(sse-writer|sse-event)\.js/, 'SSE write (http/sse-writer, sse-event)'],
    // http/ of the library only: server/http/ is the endpoint's, below
    [/\/(dist|src)\/http\//, 'http adapter + guards (http/)'],
    [/\/jsonrpc\/parse\.js/, 'parse (jsonrpc/parse)'],
    [/\/jsonrpc\//, 'jsonrpc serialize and errors (jsonrpc/)'],
    [/\/protocol\//, 'protocol checks (protocol/validate)'],
    [/\/(dist|src)\/util\//, 'utilities (util/)'],
    [/\/peer\//, 'JSON-RPC peer dispatch (peer/)'],
    [/\/server\/http\/legacy\/stream\.js/, 'streams (server/http/legacy/stream)'],
    [/\/server\/(http|sse|stdio)\//, 'server transports (server/http: handler, transport, conn)'],
    [/\/server\//, 'server tools/call (server/)'],
    [/\/eventstore\//, 'event store (eventstore/)'],
    [/\/bench\/|\/baselines\//, 'app (bench tools)'],
  ];
  for (const [re, name] of rules) if (re.test(url)) return name;
  const pkg = url.match(/\/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  return `other: ${pkg ? pkg[1] : url.replace(/^.*\//, '')}`;
}

const SOCKET_WRITE = new Set([
  'writev',
  'writeBuffer',
  'writeUtf8String',
  'writeLatin1String',
  'writeAsciiString',
  'writeUcs2String',
]);
const [withinName, withinFile] = (a.within ?? '').split('@');
const label = (f) =>
  `${f.functionName || '(anonymous)'} [${(f.url || '').replace(/^.*\/(node_modules|dist|bench)\//, '$1/').replace(/^file:\/\//, '')}:${f.lineNumber + 1}]`;

/** A profile's samples charged as the header says: busy and idle µs, by layer, by function, by caller. */
function tally(profile) {
  const byId = new Map();
  const parent = new Map();
  for (const n of profile.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }

  /** The layer a sample of this node is charged to (memoized per node). */
  const layerMemo = new Map();
  function chargeOf(id) {
    if (layerMemo.has(id)) return layerMemo.get(id);
    const n = byId.get(id);
    const { functionName: fn, url } = n.callFrame;
    let layer;
    if (fn === '(garbage collector)') layer = 'GC';
    else if (fn === '(program)') layer = '(program)';
    else if (fn === '(idle)') layer = '(idle)';
    else if (fn === '(root)') layer = 'node core, no JS caller (HTTP parser, event loop, microtasks)';
    else if (SOCKET_WRITE.has(fn) && !url) layer = 'socket write syscalls';
    else layer = layerOf(url);
    if (layer === undefined) {
      const p = parent.get(id);
      layer = p === undefined ? 'node core, no JS caller (HTTP parser, event loop, microtasks)' : chargeOf(p);
    }
    layerMemo.set(id, layer);
    return layer;
  }

  /** Whether a node's stack holds the function named by --within (memoized per node). */
  const withinMemo = new Map();
  function isWithin(id) {
    if (!a.within) return true;
    if (withinMemo.has(id)) return withinMemo.get(id);
    const f = byId.get(id).callFrame;
    const p = parent.get(id);
    const hit =
      (f.functionName === withinName && (!withinFile || f.url.includes(withinFile))) ||
      (p !== undefined && isWithin(p));
    withinMemo.set(id, hit);
    return hit;
  }

  // Sample times: startTime + cumulative timeDeltas (µs).
  const samples = profile.samples;
  const deltas = profile.timeDeltas;
  const from = a['from-ms'] === undefined ? -Infinity : Number(a['from-ms']) * 1000;
  const to = a['to-ms'] === undefined ? Infinity : Number(a['to-ms']) * 1000;
  const layerUs = new Map();
  const selfUs = new Map();
  const writeCallerUs = new Map();
  const inclusiveUs = new Map();
  const chargedUs = new Map();
  /** The innermost frame of a sample that is not node core: who caused the work. */
  function userCaller(id) {
    for (let p = id; p !== undefined; p = parent.get(p)) {
      const f = byId.get(p).callFrame;
      if (f.url && !f.url.startsWith('node:')) return label(f);
    }
    return '(no JS caller)';
  }
  let t = 0;
  let busy = 0;
  let idle = 0;
  for (let i = 0; i < samples.length; i++) {
    t += deltas[i];
    if (t < from || t > to) continue;
    // the time until the next sample belongs to this one
    const dt = i + 1 < deltas.length ? deltas[i + 1] : 0;
    const id = samples[i];
    if (!isWithin(id)) continue;
    const layer = chargeOf(id);
    if (layer === '(idle)') {
      idle += dt;
      continue;
    }
    busy += dt;
    layerUs.set(layer, (layerUs.get(layer) ?? 0) + dt);
    const caller =
      layer.startsWith('node core') || layer === 'GC' || layer.startsWith('(') ? layer : userCaller(id);
    chargedUs.set(caller, (chargedUs.get(caller) ?? 0) + dt);
    const key = label(byId.get(id).callFrame);
    selfUs.set(key, (selfUs.get(key) ?? 0) + dt);
    if (a.inclusive) {
      const seen = new Set();
      for (let p = id; p !== undefined; p = parent.get(p)) {
        const f = byId.get(p).callFrame;
        if (!f.url || f.url.startsWith('node:') || f.url.includes('/node_modules/')) continue;
        const k = label(f);
        if (seen.has(k)) continue; // recursion counts once
        seen.add(k);
        inclusiveUs.set(k, (inclusiveUs.get(k) ?? 0) + dt);
      }
    }
    if (layer === 'socket write syscalls') {
      const c = userCaller(id);
      writeCallerUs.set(c, (writeCallerUs.get(c) ?? 0) + dt);
    }
  }
  return { busy, idle, layerUs, selfUs, chargedUs, writeCallerUs, inclusiveUs };
}

const { busy, idle, layerUs, selfUs, chargedUs, writeCallerUs, inclusiveUs } = tally(
  JSON.parse(readFileSync(positionals[0], 'utf8')),
);
const calls = a.calls ? Number(a.calls) : undefined;
const pct = (us) => ((100 * us) / busy).toFixed(1).padStart(5);
const perCall = (us) => (calls ? `  ${(us / calls).toFixed(1).padStart(6)} µs/call` : '');
console.log(
  `busy ${(busy / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s${calls ? `, ${calls} calls → ${(busy / calls).toFixed(1)} µs of server CPU per call` : ''}`,
);
console.log('\nby layer (self time, node-core frames charged to their caller):');
for (const [k, v] of [...layerUs].sort((x, y) => y[1] - x[1])) console.log(`${pct(v)} %${perCall(v)}  ${k}`);
console.log('\nsocket write syscalls by the library function that caused them:');
for (const [k, v] of [...writeCallerUs].sort((x, y) => y[1] - x[1]).slice(0, 8))
  console.log(`${pct(v)} %  ${k}`);
console.log(`\ntop ${a.top} functions by charged time (self + the node core they call, as for layers):`);
for (const [k, v] of [...chargedUs].sort((x, y) => y[1] - x[1]).slice(0, Number(a.top)))
  console.log(`${pct(v)} %${perCall(v)}  ${k}`);
if (a.inclusive) {
  console.log(`\ntop ${a.top} library functions by inclusive time:`);
  for (const [k, v] of [...inclusiveUs].sort((x, y) => y[1] - x[1]).slice(0, Number(a.top)))
    console.log(`${pct(v)} %${perCall(v)}  ${k}`);
}
console.log(`\ntop ${a.top} functions by self time:`);
for (const [k, v] of [...selfUs].sort((x, y) => y[1] - x[1]).slice(0, Number(a.top)))
  console.log(`${pct(v)} %  ${k}`);

if (a.against !== undefined) {
  // Both servers' work by layer: the ceiling's app layer is its whole request path, mcpwire's is only its tools.
  const other = tally(JSON.parse(readFileSync(a.against, 'utf8')));
  const otherCalls = Number(a['against-calls']);
  const us = (v) => v.toFixed(2).padStart(7);
  const rows = [...new Set([...layerUs.keys(), ...other.layerUs.keys()])].map((k) => [
    k,
    (layerUs.get(k) ?? 0) / calls,
    (other.layerUs.get(k) ?? 0) / otherCalls,
  ]);
  console.log(`\nby layer, µs per call: this profile, ${a.against}, the difference`);
  for (const [k, mine, theirs] of rows.sort((x, y) => y[1] - y[2] - (x[1] - x[2])))
    console.log(`${us(mine)} ${us(theirs)} ${us(mine - theirs)}  ${k}`);
  const [mine, theirs] = [busy / calls, other.busy / otherCalls];
  console.log(
    `${us(mine)} ${us(theirs)} ${us(mine - theirs)}  all (${((mine / theirs) * 100).toFixed(0)} % of the other's)`,
  );
}
