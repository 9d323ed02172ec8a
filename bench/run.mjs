#!/usr/bin/env node
// `npm run bench`: every scenario of issue 5, mcpwire side by side with the official SDK 1.32.2
// (baselines/sdk-server.mjs; for the modern era, v2's createMcpHandler in baselines/sdk-v2-server.mjs)
// and the node:http ceiling (ceiling.mjs), through compare.mjs (fresh
// server per run, server and load generator pinned to different cores, order alternating per
// repetition). Prints the issue's table with ratios to the ceiling; raw runs go to --out.
//
//   npm run build && npm run bench [-- --quick | --smoke] [--only calls,sessions] [--reps 3] [--lib path/index.js]
//
// It exits 1, saying why, when the run is not whole (completeness.mjs): a server that did not run or failed a
// call, a figure missing from the table, resumes mcpwire got wrong. Never for a speed.
//
// Runs disturbed by other processes (other_cpu_pct > 15, i.e. a neighbour took >15 % of a core) are
// left out of the medians when clean runs exist, and the scenario is repeated (one more round of
// every server, up to --retry-noisy times) while a server has fewer clean runs than half the reps.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { incompleteness } from './lib/completeness.mjs';
import { LENGTHS, planOf, SCENARIOS, serverName } from './lib/plan.mjs';
import { isClean, reportText, tableRows } from './lib/report.mjs';
import { cpuUsPerCall } from './lib/stats.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const { values: a } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    smoke: { type: 'boolean', default: false },
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

if (a.help) {
  console.log(`usage: npm run bench -- [--quick | --smoke] [--only ${SCENARIOS.join(',')}] [--reps N] [--lib DIST/index.js]
       [--out DIR] [--retry-noisy N] [--noise-limit PCT] [--no-pin] [--port-base 3900]
  --quick        short runs, 1 repetition (a first look, ~6 min)
  --smoke        the shortest runs, 1 repetition: every scenario runs and fills every figure (~2 min; the
                 figures mean nothing)
  --only         scenarios to run (default: all; full run ~20 min)
  --lib          benchmark another build of mcpwire (default: ../dist/index.js)
  --retry-noisy  extra rounds per scenario while runs are disturbed (default 1; 0 with --quick, --smoke)
  --report-only  print the table from the runs already in --out, running nothing`);
  process.exit(0);
}
if (a.quick && a.smoke) {
  console.error('--quick and --smoke are two lengths of run: give one');
  process.exit(1);
}
const length = a.smoke ? 'smoke' : a.quick ? 'quick' : 'full';

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

const reps = Number(a.reps ?? LENGTHS[length].reps);
const retryNoisy = Number(a['retry-noisy'] ?? LENGTHS[length].retryNoisy);
const noiseLimit = Number(a['noise-limit']);
const outDir =
  a.out ??
  here(`./results/${new Date().toISOString().replace(/[:.]/g, '-')}${length === 'full' ? '' : `-${length}`}`);
mkdirSync(outDir, { recursive: true });
const PLAN = planOf(lib, length);

// ---- running ----
const readRuns = (file) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

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
      const short = entry.servers
        .map(serverName)
        .filter(
          (n) => runs.filter((r) => r.server === n && isClean(r, noiseLimit)).length < Math.ceil(reps / 2),
        );
      if (!short.length) break;
      console.error(
        `--- ${entry.key}: too few undisturbed runs for ${short.join(', ')}; one more round (${round}/${retryNoisy})`,
      );
      compare(entry, 1, round);
    }
  }
}

// ---- the table, and whether the run is whole ----
const entries = only.flatMap((name) => PLAN[name]);
const runsOf = {};
for (const e of entries) runsOf[e.key] = readRuns(`${outDir}/${e.key}.jsonl`);
// Server CPU per call, unrounded (compare.mjs records it rounded; runs from before it did, not at all).
for (const runs of Object.values(runsOf)) for (const r of runs) r.cpu_us_per_call = cpuUsPerCall(r);
const rows = tableRows(runsOf, noiseLimit);
const when = new Date().toISOString().replace('T', ' ').slice(0, 16);
const lengthName = { full: 'full run', quick: 'QUICK run', smoke: 'SMOKE run (its figures mean nothing)' };
const title = `## mcpwire vs official SDK 1.32.2${runsOf.modern?.length ? ' (modern rows: v2 2.4.0)' : ''} vs node:http ceiling — ${when} UTC, ${lengthName[length]}, ${reps} rep(s), ${Math.round((Date.now() - started) / 60000)} min`;
const report = reportText(title, rows, runsOf, noiseLimit);
console.log(`\n${report}`);
writeFileSync(`${outDir}/summary.md`, `${report}\n`);
console.error(
  `\nraw runs: ${outDir}/*.jsonl · compare tables: ${outDir}/tables.md · this table: ${outDir}/summary.md`,
);
const gaps = incompleteness(entries, runsOf, rows);
if (gaps.length) {
  console.error(`\nThis run is not whole (${gaps.length}):\n${gaps.map((g) => `  - ${g}`).join('\n')}`);
  process.exitCode = 1;
}
