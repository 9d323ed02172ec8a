#!/usr/bin/env node
// `npm run bench`: every scenario of issue 5, mcpwire side by side with the official SDK 1.32.2
// (baselines/sdk-server.mjs; for the modern era, v2's createMcpHandler in baselines/sdk-v2-server.mjs)
// and the node:http ceiling (ceiling.mjs), through compare.mjs (fresh
// server per run, server and load generator pinned to different cores, order alternating per
// repetition). Prints the issue's table with ratios to the ceiling; raw runs go to --out.
//
//   npm run build && npm run bench [-- --quick] [--only calls,sessions] [--reps 3] [--lib path/index.js]
//
// Runs disturbed by other processes (other_cpu_pct > 15, i.e. a neighbour took >15 % of a core) are
// left out of the medians when clean runs exist, and the scenario is repeated (one more round of
// every server, up to --retry-noisy times) while a server has fewer clean runs than half the reps.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cpuUsPerCall } from './lib/stats.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const { values: a } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    reps: { type: 'string' },
    lib: { type: 'string' },
    out: { type: 'string' },
    'retry-noisy': { type: 'string' },
    'noise-limit': { type: 'string', default: '15' },
    'no-pin': { type: 'boolean', default: false },
    'port-base': { type: 'string', default: '3900' },
    'report-only': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

const SCENARIOS = ['calls', 'stateless', 'modern', 'sessions', 'fanout', 'payload', 'resume'];
if (a.help) {
  console.log(`usage: npm run bench -- [--quick] [--only ${SCENARIOS.join(',')}] [--reps N] [--lib DIST/index.js]
       [--out DIR] [--retry-noisy N] [--noise-limit PCT] [--no-pin] [--port-base 3900]
  --quick        short runs, 1 repetition (a smoke run, ~2-3 min)
  --only         scenarios to run (default: all; full run ~20 min)
  --lib          benchmark another build of mcpwire (default: ../dist/index.js)
  --retry-noisy  extra rounds per scenario while runs are disturbed (default 1; 0 with --quick)
  --report-only  print the table from the runs already in --out, running nothing`);
  process.exit(0);
}

// ---- preconditions, each with the command that fixes it ----
const lib = a.lib ?? here('../dist/index.js');
const missing = [];
if (!existsSync(lib)) {
  missing.push(
    a.lib ? `the library given with --lib: no file ${lib}` : 'the built library (dist/): run `npm run build`',
  );
}
if (!existsSync(here('./node_modules/undici/package.json')))
  missing.push('the harness dependency: run `npm ci --prefix bench`');
const only = a.only ? a.only.split(',') : SCENARIOS;
for (const s of only)
  if (!SCENARIOS.includes(s)) {
    console.error(`unknown scenario ${s}; one of ${SCENARIOS.join(', ')}`);
    process.exit(1);
  }
const baselines = ['sdk', ...(only.includes('modern') ? ['server', 'node'] : [])];
if (
  baselines.some((p) => !existsSync(here(`./baselines/node_modules/@modelcontextprotocol/${p}/package.json`)))
) {
  missing.push('the official SDK baselines (v1, and v2 for modern): run `npm ci --prefix bench/baselines`');
}
if (missing.length) {
  console.error(`npm run bench needs:\n${missing.map((m) => `  - ${m}`).join('\n')}`);
  process.exit(1);
}

const quick = a.quick;
const reps = Number(a.reps ?? (quick ? 1 : 3));
const retryNoisy = Number(a['retry-noisy'] ?? (quick ? 0 : 1));
const noiseLimit = Number(a['noise-limit']);
const outDir =
  a.out ?? here(`./results/${new Date().toISOString().replace(/[:.]/g, '-')}${quick ? '-quick' : ''}`);
mkdirSync(outDir, { recursive: true });

// ---- the servers ----
const q = (p) => `'${p}'`;
const node = (gc) => `${q(process.execPath)}${gc ? ' --expose-gc' : ''}`;
const ceiling = (name, gc, flags = '') =>
  `${name}=${node(gc)} ${q(here('./ceiling.mjs'))} --port {port}${flags}`;
const ours = (name, gc, flags = '') =>
  `${name}=${node(gc)} ${q(here('./server.mjs'))} --port {port} --lib ${q(lib)}${flags}`;
const sdk = (name, gc, flags = '') =>
  `${name}=${node(gc)} ${q(here('./baselines/sdk-server.mjs'))} --port {port}${flags}`;
const sdkV2 = (name, flags = '') =>
  `${name}=${node(false)} ${q(here('./baselines/sdk-v2-server.mjs'))} --port {port}${flags}`;

const timed = quick ? ['--duration', '2', '--warmup', '1'] : ['--duration', '10', '--warmup', '2'];
// 10,000 idle sessions opened (2,000 in a quick run), then DELETEd, each reading after a forced GC
const sessionsArgs = [
  '--count',
  quick ? '2000' : '10000',
  '--concurrency',
  '32',
  '--gc-tool',
  'gc',
  '--delete',
  '--settle',
  quick ? '1' : '2',
];
// ceiling-state keeps what MCP requires a server to remember per session (the negotiated version, the client's
// capabilities and info): the least any stateful server can hold, beside the ceiling that holds nothing.
const withGc = [
  ceiling('ceiling', true),
  ceiling('ceiling-state', true, ' --state'),
  ours('mcpwire', true),
  sdk('sdk', true),
];
/** One compare.mjs invocation per entry: scenario, bench args, servers. */
const PLAN = {
  calls: [
    {
      key: 'calls',
      scenario: 'calls',
      args: [...timed, '--sessions', '32'],
      servers: [
        ceiling('ceiling', false),
        ours('mcpwire-sse', false),
        ours('mcpwire-json', false, ' --json'),
        sdk('sdk-sse', false),
        sdk('sdk-json', false, ' --json'),
      ],
    },
  ],
  stateless: [
    {
      key: 'stateless',
      scenario: 'stateless',
      args: [...timed, '--sessions', '32'],
      servers: [
        ceiling('ceiling', false),
        ours('mcpwire', false, ' --stateless'),
        sdk('sdk', false, ' --mode stateless'),
      ],
    },
  ],
  // 2026-07-28 requests, no session: the ceiling answering that shape, mcpwire's dual-era handler as
  // `mcpwire serve` runs it, and the SDK v2's default entry (createMcpHandler)
  modern: [
    {
      key: 'modern',
      scenario: 'modern',
      args: [...timed, '--sessions', '32'],
      servers: [
        ceiling('ceiling', false, ' --modern'),
        ours('mcpwire', false),
        sdkV2('sdk-v2', ' --stateless'),
      ],
    },
  ],
  sessions: [
    {
      key: 'sessions',
      scenario: 'sessions',
      args: [...sessionsArgs, '--idle-after-delete', '20'],
      servers: withGc,
    },
    {
      // The same in a process that has held 10,000 sessions already, as a server in service has: V8's young
      // generation has grown to its size under load, so what is measured is what sessions themselves cost.
      key: 'sessions-warm',
      scenario: 'sessions',
      args: [...sessionsArgs, '--warm-sessions', '10000'],
      servers: withGc,
    },
  ],
  fanout: [
    {
      key: 'fanout',
      scenario: 'fanout',
      args: [
        '--count',
        '1000',
        '--rounds',
        quick ? '3' : '10',
        '--warmup-rounds',
        '1',
        '--concurrency',
        '32',
      ],
      servers: [ceiling('ceiling', false), ours('mcpwire', false), sdk('sdk', false)],
    },
  ],
  payload: [
    {
      key: 'payload',
      scenario: 'payload',
      args: [...timed, '--sessions', '4', '--size', '1048576'],
      servers: [
        ceiling('ceiling-json', false),
        ceiling('ceiling-sse', false, ' --sse'),
        ours('mcpwire-sse', false),
        ours('mcpwire-json', false, ' --json'),
        sdk('sdk-sse', false),
        sdk('sdk-json', false, ' --json'),
      ],
    },
  ],
  resume: [
    ['burst', ['--interval-ms', '0']],
    ['paced', ['--interval-ms', '2']],
    ['after', ['--interval-ms', '1', '--reconnect-delay-ms', '300']],
  ].map(([variant, v]) => ({
    key: `resume-${variant}`,
    scenario: 'resume',
    args: ['--count', '50', '--drop-after', '5', '--iterations', quick ? '5' : '20', ...v],
    servers: [ours('mcpwire', false), sdk('sdk', false, ' --event-store')],
  })),
};

// ---- running ----
const readRuns = (file) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
const isClean = (r) => !r.error && (r.other_cpu_pct === undefined || r.other_cpu_pct <= noiseLimit);

function compare(entry, n, round) {
  const args = [
    here('./compare.mjs'),
    '--scenario',
    entry.scenario,
    '--reps',
    String(n),
    '--out',
    `${outDir}/${entry.key}.jsonl`,
    '--md',
    `${outDir}/tables.md`,
    '--log-dir',
    `${outDir}/logs/${entry.key}-${round}`,
    '--port-base',
    a['port-base'],
    ...(a['no-pin'] ? ['--no-pin'] : []),
    ...entry.servers.flatMap((s) => ['--server', s]),
    '--',
    ...entry.args,
  ];
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) console.error(`compare.mjs for ${entry.key} exited with ${r.status ?? r.signal}`);
}

const started = Date.now();
for (const name of a['report-only'] ? [] : only) {
  for (const entry of PLAN[name]) {
    console.error(`\n=== ${entry.key} (${reps} rep${reps > 1 ? 's' : ''}) ===`);
    compare(entry, reps, 0);
    for (let round = 1; round <= retryNoisy; round++) {
      const runs = readRuns(`${outDir}/${entry.key}.jsonl`);
      const names = entry.servers.map((s) => s.slice(0, s.indexOf('=')));
      const short = names.filter(
        (n) => runs.filter((r) => r.server === n && isClean(r)).length < Math.ceil(reps / 2),
      );
      if (!short.length) break;
      console.error(
        `--- ${entry.key}: too few undisturbed runs for ${short.join(', ')}; one more round (${round}/${retryNoisy})`,
      );
      compare(entry, 1, round);
    }
  }
}

// ---- the table ----
const median = (xs) => {
  const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((x, y) => x - y);
  if (!v.length) return null;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};
const runsOf = {};
for (const name of only) for (const e of PLAN[name]) runsOf[e.key] = readRuns(`${outDir}/${e.key}.jsonl`);
// Server CPU per call, unrounded (compare.mjs records it rounded; runs from before it did, not at all).
for (const runs of Object.values(runsOf)) for (const r of runs) r.cpu_us_per_call = cpuUsPerCall(r);
/**
 * Whether a scenario's medians use only undisturbed runs: when every server has one, so that the
 * ratios compare like with like; otherwise all runs count and the figures are marked noisy.
 */
const cleanOnly = {};
for (const [key, runs] of Object.entries(runsOf)) {
  const servers = new Set(runs.map((r) => r.server));
  cleanOnly[key] = [...servers].every((s) => runs.some((r) => r.server === s && isClean(r)));
}
/** Median of a metric over a server's runs (see `cleanOnly`). */
function med(key, server, metric) {
  const runs = (runsOf[key] ?? []).filter((r) => r.server === server && !r.error);
  const use = cleanOnly[key] ? runs.filter(isClean) : runs;
  return { v: median(use.map((r) => r[metric])), noisy: !cleanOnly[key] && runs.length > 0, n: use.length };
}
const sum = (key, server, metric) =>
  (runsOf[key] ?? [])
    .filter((r) => r.server === server && !r.error)
    .reduce((s, r) => s + (r[metric] ?? 0), 0);
const fmt = (x, unit = '') => {
  if (x === null || x === undefined) return '–';
  const s = Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2);
  return `${s.replace(/\B(?=(\d{3})+(?!\d))/g, ' ')}${unit}`;
};
const cell = (m, unit) => `${fmt(m.v, unit)}${m.noisy ? ' (noisy)' : ''}`;
const ratio = (x, base) =>
  x.v === null || base.v === null || !base.v ? '–' : `${(x.v / base.v).toFixed(3)}×`;

const rows = [];
/** A row: ceiling, SDK, mcpwire, ratios to the ceiling, the target and whether mcpwire meets it. */
function row(
  label,
  key,
  metric,
  {
    ceil = 'ceiling',
    sdkName = 'sdk',
    oursName = 'mcpwire',
    unit = '',
    target = '',
    meets,
    ratios = true,
    ceilKey = key,
  },
) {
  if (!runsOf[key]?.length) return;
  const c = ceil ? med(ceilKey, ceil, metric) : { v: null };
  const s = med(key, sdkName, metric);
  const o = med(key, oursName, metric);
  rows.push([
    label,
    ceil ? cell(c, unit) : '–',
    cell(s, unit),
    cell(o, unit),
    ratios && ceil ? ratio(s, c) : '–',
    ratios && ceil ? ratio(o, c) : '–',
    target,
    meets === undefined ? '' : o.v === null ? '?' : meets(o.v, c.v) ? 'yes' : 'no',
  ]);
}
const atLeast = (k) => (v, c) => c !== null && v / c >= k;
const atMost = (k) => (v) => v <= k;

// The servers of a row other than the defaults (ceiling, sdk, mcpwire).
const SSE = { sdkName: 'sdk-sse', oursName: 'mcpwire-sse' };
const JSON_ANSWERS = { sdkName: 'sdk-json', oursName: 'mcpwire-json' };
const ms = { unit: ' ms' };
const us = { unit: ' µs' };
// Figures per session or per process: no ratio to the ceiling.
const absolute = { ratios: false };

row('calls, SSE answers, 32 sessions: calls/s', 'calls', 'calls_per_s', {
  ...SSE,
  target: '≥ 0.5× ceiling',
  meets: atLeast(0.5),
});
row('calls, SSE: p50 latency', 'calls', 'p50_ms', { ...SSE, ...ms, ...absolute });
row('calls, SSE: p99 latency', 'calls', 'p99_ms', { ...SSE, ...ms, ...absolute });
row('calls, SSE: server CPU (% of its core)', 'calls', 'server_cpu_pct', { ...SSE, ...absolute });
row('calls, SSE: load generator CPU (% of its core)', 'calls', 'client_cpu_pct', {
  ...SSE,
  ...absolute,
  target: 'harness co-limits above ~85',
});
row('calls, SSE: server CPU per call (µs)', 'calls', 'cpu_us_per_call', { ...SSE, ...us });
row('calls, JSON-response mode: calls/s', 'calls', 'calls_per_s', {
  ...JSON_ANSWERS,
  target: '≥ 0.5× ceiling',
  meets: atLeast(0.5),
});
row('calls, JSON: server CPU per call (µs)', 'calls', 'cpu_us_per_call', { ...JSON_ANSWERS, ...us });
row('stateless: calls/s', 'stateless', 'calls_per_s', { target: '≥ 0.4× ceiling', meets: atLeast(0.4) });
row('stateless: server CPU per call (µs)', 'stateless', 'cpu_us_per_call', us);
// The SDK column of the modern rows is v2 2.4.0 (createMcpHandler), not 1.32.2. A call mcpwire failed
// (an HTTP error, a JSON-RPC error) fails the target whatever the rate of the others.
const V2 = { sdkName: 'sdk-v2' };
row('modern (2026-07-28, no session; SDK v2): calls/s', 'modern', 'calls_per_s', {
  ...V2,
  target: '≥ 0.8× ceiling, no failed call',
  meets: (v, c) => sum('modern', 'mcpwire', 'errors') === 0 && atLeast(0.8)(v, c),
});
row('modern: p50 latency', 'modern', 'p50_ms', { ...V2, ...ms, ...absolute });
row('modern: p99 latency', 'modern', 'p99_ms', { ...V2, ...ms, ...absolute });
row('modern: server CPU per call (µs)', 'modern', 'cpu_us_per_call', { ...V2, ...us });
const fiveKb = { ...absolute, target: '≤ 5 KB', meets: atMost(5) };
const oneKb = { ...absolute, target: '≤ 1 KB', meets: atMost(1) };
row('sessions: RSS per idle session (KB)', 'sessions', 'rss_per_session_kb', fiveKb);
row('sessions: heap per idle session after GC (KB)', 'sessions', 'heap_per_session_kb', absolute);
row(
  'sessions: RSS retained per session after DELETE (KB)',
  'sessions',
  'retained_after_delete_kb_per_session',
  oneKb,
);
row(
  'sessions: RSS retained per session 20 s after DELETE (KB)',
  'sessions',
  'retained_after_idle_kb_per_session',
  absolute,
);
row(
  'sessions: heap retained per session after DELETE (KB)',
  'sessions',
  'heap_retained_after_delete_kb_per_session',
  oneKb,
);
row(
  'sessions, warmed process (10,000 sessions before): RSS per idle session (KB)',
  'sessions-warm',
  'rss_per_session_kb',
  fiveKb,
);
row(
  'sessions, warmed process: RSS retained per session after DELETE (KB)',
  'sessions-warm',
  'retained_after_delete_kb_per_session',
  oneKb,
);
/** A row of `ceiling-state` alone, in the ceiling's column: the floor of a server that keeps session state. */
function stateFloor(label, key, metric, target) {
  if (runsOf[key]?.some((r) => r.server === 'ceiling-state'))
    rows.push([label, cell(med(key, 'ceiling-state', metric), ''), '–', '–', '–', '–', target, '']);
}
const floorOf = 'sessions, ceiling keeping each session’s version, capabilities and client info';
stateFloor(`${floorOf}: heap per idle session after GC (KB)`, 'sessions', 'heap_per_session_kb', '');
stateFloor(
  `${floorOf}: RSS retained per session after DELETE (KB)`,
  'sessions',
  'retained_after_delete_kb_per_session',
  '(≤ 1 KB)',
);
stateFloor(
  `${floorOf}, warmed process: RSS retained per session after DELETE (KB)`,
  'sessions-warm',
  'retained_after_delete_kb_per_session',
  '(≤ 1 KB)',
);
row('sessions: opened per second', 'sessions', 'open_per_s', {
  target: '≥ 0.5× ceiling',
  meets: atLeast(0.5),
});
row('fanout, 1,000 GET streams: all delivered, median round (ms)', 'fanout', 'all_delivered_median_ms', {
  ...ms,
  target: '≤ 1.5× ceiling',
  meets: (v, c) => c !== null && v / c <= 1.5,
});
row('fanout: delivery p50 (ms)', 'fanout', 'delivery_p50_ms', ms);
// Each payload mode against the ceiling answering the same way.
const PAYLOAD_MODES = [
  ['SSE', { ceil: 'ceiling-sse', ...SSE }],
  ['JSON', { ceil: 'ceiling-json', ...JSON_ANSWERS }],
];
for (const [mode, servers] of PAYLOAD_MODES) {
  row(`payload 1 MiB, ${mode}: MiB/s (÷ ${mode} ceiling)`, 'payload', 'mib_per_s', {
    ...servers,
    target: '≥ 0.95× ceiling',
    meets: atLeast(0.95),
  });
}
for (const [mode, servers] of PAYLOAD_MODES) {
  row(`payload, ${mode}: peak RSS (MiB)`, 'payload', 'rss_hwm_mib', {
    ...servers,
    ...absolute,
    target: '< 300 MB',
    meets: atMost(286),
  });
}
for (const [variant, what] of [
  ['burst', 'burst (0 ms apart)'],
  ['paced', 'paced 2 ms, drop while running'],
  ['after', '1 ms, resume after completion'],
]) {
  const key = `resume-${variant}`;
  if (!runsOf[key]?.length) continue;
  const of = (s) =>
    `${sum(key, s, 'ok')}/${sum(key, s, 'iterations')}, left open ${sum(key, s, 'streams_left_open')}`;
  const okAll =
    sum(key, 'mcpwire', 'ok') === sum(key, 'mcpwire', 'iterations') && sum(key, 'mcpwire', 'iterations') > 0;
  rows.push([
    `resume, ${what}: correct, streams left open`,
    '–',
    of('sdk'),
    of('mcpwire'),
    '–',
    '–',
    'all correct, none left open',
    okAll && sum(key, 'mcpwire', 'streams_left_open') === 0 ? 'yes' : 'no',
  ]);
}

const when = new Date().toISOString().replace('T', ' ').slice(0, 16);
const lines = [
  `## mcpwire vs official SDK 1.32.2${runsOf.modern?.length ? ' (modern rows: v2 2.4.0)' : ''} vs node:http ceiling — ${when} UTC, ${quick ? 'QUICK (smoke) run' : 'full run'}, ${reps} rep(s), ${Math.round((Date.now() - started) / 60000)} min`,
  '',
  '| scenario | ceiling | official SDK | mcpwire | SDK ÷ ceiling | mcpwire ÷ ceiling | target | met |',
  '|---|---|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.join(' | ')} |`),
  '',
  `Medians over the undisturbed runs (other processes ≤ ${noiseLimit} % of a core) when every server of the scenario has one;`,
  'otherwise over all runs, marked "(noisy)". "server CPU per call" is the least sensitive to neighbours.',
];
// Noise and problems, per scenario
lines.push('', '### Noise (other_cpu_pct per run, % of one core) and problems', '');
for (const [key, runs] of Object.entries(runsOf)) {
  const byServer = {};
  for (const r of runs) {
    byServer[r.server] ??= [];
    byServer[r.server].push(r);
  }
  const noise = Object.entries(byServer).map(
    ([s, rs]) => `${s}: ${rs.map((r) => (r.error ? 'ERR' : (r.other_cpu_pct ?? '-'))).join(', ')}`,
  );
  lines.push(`- ${key}: ${noise.join(' · ')}`);
  for (const r of runs) {
    const bad = [];
    if (r.error) bad.push(`error: ${r.error}`);
    if (r.errors)
      bad.push(
        `${r.errors} failed calls ${JSON.stringify(r.error_kinds)} ${JSON.stringify(r.error_samples?.slice(0, 2))}`,
      );
    if (r.server_log_error_lines) bad.push(`${r.server_log_error_lines} error lines in ${r.server_log}`);
    if (r.missing) bad.push(`${r.missing} fan-out deliveries missing`);
    if (r.failures)
      bad.push(
        `resume failures ${JSON.stringify(r.failure_kinds)} ${JSON.stringify(r.failure_samples?.slice(0, 2))}`,
      );
    if (r.delete_failures) bad.push(`${r.delete_failures} failed DELETEs`);
    if (bad.length) lines.push(`  - ${r.server} rep ${r.rep}: ${bad.join('; ')}`);
  }
}
const report = lines.join('\n');
console.log(`\n${report}`);
writeFileSync(`${outDir}/summary.md`, `${report}\n`);
console.error(
  `\nraw runs: ${outDir}/*.jsonl · compare tables: ${outDir}/tables.md · this table: ${outDir}/summary.md`,
);
