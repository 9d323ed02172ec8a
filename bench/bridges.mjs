#!/usr/bin/env node
// The bridges side by side (issue 23): one stdio server (baselines/stdio-child.mjs, the official SDK v1 over stdio)
// served over Streamable HTTP by `mcpwire serve -- CMD`, by mcp-proxy 6.7.19 and by supergateway 4.0.0 --stateful,
// under the same closed loop of tools/call (bench.mjs calls, 32 sessions), with compare.mjs: a fresh bridge per
// run, the bridge pinned to one core and the load generator to the other, order alternating. CPU per call is the
// bridge process's alone (its children are the same program for all three, and supergateway starts one per
// session); calls/s is what the whole chain answers. Every bridge and child runs on the Node 22 kept in
// tools/conformance: mcp-proxy's tunnel dependency admits no older one. Then the floor (the child called over its
// stdio directly, as many calls in flight as there are sessions) and the memory a 2025 session costs behind each
// bridge, children included (`--rss-sessions` sessions, each making one call): mcpwire's shared pool and --isolate,
// mcp-proxy, supergateway --stateful.
//   node bench/bridges.mjs [--reps 3] [--duration 10] [--rss-sessions 20] [--md FILE]
// after npm run build, npm ci --prefix tools/conformance, npm ci --prefix bench/baselines, and with that Node 22
// first on PATH, npm ci --prefix bench/bridges.
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from './lib/redis-server.mjs';
import { sessionRss } from './lib/session-rss.mjs';
import { stdioFloor } from './lib/stdio-floor.mjs';

const { values: a } = parseArgs({
  options: {
    reps: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    sessions: { type: 'string', default: '32' },
    'rss-sessions': { type: 'string', default: '20' },
    md: { type: 'string' },
  },
});
const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const q = (p) => `'${p}'`;
const node22 = here('../tools/conformance/node_modules/.bin/node');
const node = q(node22);
const child = `${node} ${q(here('baselines/stdio-child.mjs'))}`;
const bridges = here('bridges/node_modules');
const needed = [
  here('../dist/cli/main.js'),
  node22,
  here('baselines/node_modules/@modelcontextprotocol/sdk'),
  `${bridges}/mcp-proxy`,
  `${bridges}/supergateway`,
];
const missing = needed.filter((p) => !existsSync(p));
if (missing.length > 0) {
  console.error(
    `missing: ${missing.join(', ')} — run npm run build, npm ci --prefix tools/conformance, npm ci --prefix ` +
      'bench/baselines, and npm ci --prefix bench/bridges with the Node 22 of tools/conformance first on PATH',
  );
  process.exit(1);
}
const mcpwire = `${node} ${q(here('../dist/cli/main.js'))} serve --port {port} --no-legacy-sse`;
const servers = [
  `mcpwire=${mcpwire} -- ${child}`,
  `mcp-proxy=${node} ${q(`${bridges}/mcp-proxy/dist/bin/mcp-proxy.mjs`)} --port {port} --host 127.0.0.1 --server stream -- ${child}`,
  `supergateway=${node} ${q(`${bridges}/supergateway/dist/index.js`)} --stdio ${q(child.replaceAll("'", ''))} --outputTransport streamableHttp --stateful --port {port} --logLevel none`,
];
const args = [
  here('compare.mjs'),
  '--scenario',
  'calls',
  '--reps',
  a.reps,
  '--baseline',
  'mcpwire',
  ...servers.flatMap((s) => ['--server', s]),
  ...(a.md ? ['--md', a.md] : []),
  '--',
  '--duration',
  a.duration,
  '--warmup',
  a.warmup,
  '--sessions',
  a.sessions,
];
const run = spawnSync(process.execPath, args, { stdio: 'inherit' });
if (run.status !== 0) process.exit(run.status ?? 1);

const lines = [];
const say = (line) => {
  lines.push(line);
  console.log(line);
};
const floor = await stdioFloor(node22, [here('baselines/stdio-child.mjs')], {
  duration: Number(a.duration),
  warmup: Number(a.warmup),
  inflight: Number(a.sessions),
});
say('');
say(
  `floor, the child over its stdio with no bridge (${a.sessions} calls in flight): ${floor.calls_per_s} calls/s, ` +
    `p50 ${floor.p50_us} µs, the child's CPU ${floor.child_cpu_us_per_call} µs per call`,
);
const sessions = Number(a['rss-sessions']);
say('');
say(
  `### memory per 2025 session, ${sessions} sessions each making one call (the bridge and every process it started)`,
);
say('');
say('| bridge | RSS before (MiB) | RSS after (MiB) | per session (KiB) | processes |');
say('| --- | --- | --- | --- | --- |');
for (const [name, command] of [
  ['mcpwire serve -- CMD (shared pool)', `${mcpwire} -- ${child}`],
  ['mcpwire serve --isolate -- CMD', `${mcpwire} --isolate -- ${child}`],
  [servers[1].split('=')[0], servers[1].slice(servers[1].indexOf('=') + 1)],
  [servers[2].split('=')[0], servers[2].slice(servers[2].indexOf('=') + 1)],
]) {
  const r = await sessionRss(command, { port: await freePort(), sessions });
  say(`| ${name} | ${r.rss_before_mib} | ${r.rss_after_mib} | ${r.kib_per_session} | ${r.processes} |`);
}
if (a.md) appendFileSync(a.md, `${lines.join('\n')}\n`);
