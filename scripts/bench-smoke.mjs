#!/usr/bin/env node
// Every benchmark of bench/ once, at its shortest, as CI runs it: `npm run bench -- --smoke` (every scenario of the
// table, which fails unless the run is whole), compare.mjs --paired (mcpwire, then the ceiling with mcpwire resident,
// each beside the ceiling; mcpwire beside the ceiling that checks what the spec asks, in both eras, and beside the one
// that also keeps events for resuming clients), the Redis benchmarks (cluster.mjs in both eras, redis-sizing.mjs), and the tools of
// bench/README.md's "Profiling" (a profiled bench server under load, profile-summary.mjs alone and --against a
// second profile, alloc-sampler.mjs, broadcast-cost.mjs, heap-per-session.mjs, retention.mjs, store-window.mjs, alloc-ab.mjs).
// Each must exit 0 and print its figures, none NaN or undefined. No speed is asserted: the figures of runs this
// short mean nothing.
//
//   npm run build && npm ci --prefix bench && npm ci --prefix bench/baselines && node scripts/bench-smoke.mjs
//   (redis-server on PATH; about 3 minutes)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort } from '../bench/lib/redis-server.mjs';

const bench = (p) => fileURLToPath(new URL(`../bench/${p}`, import.meta.url));
/** node's arguments that run bench/`file` with `args` (words apart by spaces). */
const tool = (file, args) => [bench(file), ...args.split(' ')];

const missing = [
  [existsSync(fileURLToPath(new URL('../dist/index.js', import.meta.url))), 'the build: run `npm run build`'],
  [existsSync(bench('node_modules/undici')), 'the harness: run `npm ci --prefix bench`'],
  [
    existsSync(bench('baselines/node_modules/@modelcontextprotocol')),
    'run `npm ci --prefix bench/baselines`',
  ],
  [!spawnSync('redis-server', ['--version']).error, 'redis-server on PATH (apt-get install redis-server)'],
].filter(([ok]) => !ok);
if (missing.length) {
  console.error(`the bench smoke needs:\n${missing.map(([, what]) => `  - ${what}`).join('\n')}`);
  process.exit(1);
}
const dir = mkdtempSync(join(tmpdir(), 'mcpwire-bench-smoke-'));

/**
 * Runs node with `args` (at most `minutes`), its stderr shown as it comes; answers why it failed, or null when it
 * exited 0 and its stdout matched `expect` with no figure NaN or undefined.
 */
function check(args, expect, minutes = 2) {
  const r = spawnSync(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    timeout: minutes * 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  process.stdout.write(r.stdout ?? '');
  if (r.error) return r.error.message;
  if (r.status !== 0) return `exited with ${r.status ?? r.signal}`;
  if (/\bNaN\b|\bundefined\b/.test(r.stdout)) return 'a figure is NaN or undefined';
  if (!expect.test(r.stdout)) return `its output does not show ${expect}`;
  return null;
}

/**
 * The "Profiling" recipe: the bench server with --cpu-prof and the allocation sampler, under bench.mjs's calls for a
 * second; SIGUSR2 writes the allocation profile, SIGTERM the CPU profile, which profile-summary.mjs then reads.
 */
async function profiled() {
  const { startBenchServer } = await import('../bench/lib/bench-server.mjs');
  // The server's folder, where --cpu-prof and the sampler write their profiles.
  const prof = join(dir, 'profile');
  mkdirSync(prof);
  const port = await freePort();
  const { server, stop } = await startBenchServer({
    port: String(port),
    nodeFlags: ['--cpu-prof', '--import', pathToFileURL(bench('alloc-sampler.mjs')).href],
    cwd: prof,
  });
  const exited = new Promise((resolve) => server.once('exit', resolve));
  try {
    const load = check(
      tool(
        'bench.mjs',
        `calls --url http://127.0.0.1:${port}/mcp --pid ${server.pid} --duration 1 --warmup 0 --sessions 4`,
      ),
      /"calls_per_s":\d.*"errors":0/,
    );
    if (load) return `bench.mjs calls: ${load}`;
    server.kill('SIGUSR2');
    let timer;
    const wrote = await Promise.race([
      new Promise((resolve) =>
        server.stdout.on('data', (chunk) => String(chunk).includes('alloc sampler: wrote') && resolve(true)),
      ),
      new Promise((resolve) => {
        timer = setTimeout(resolve, 30_000, false);
      }),
    ]);
    clearTimeout(timer);
    if (!wrote) return 'SIGUSR2 wrote no allocation profile in 30 s';
  } finally {
    await stop();
    await exited;
  }
  const profile = readdirSync(prof).find((f) => f.endsWith('.cpuprofile'));
  if (profile === undefined) return `no CPU profile in ${prof}`;
  const summary = check([bench('profile-summary.mjs'), join(prof, profile), '--top', '5'], /^by layer/m);
  if (summary) return summary;
  const side = [
    join(prof, profile),
    '--calls',
    '1000',
    '--against',
    join(prof, profile),
    '--against-calls',
    '1000',
  ];
  return check(
    [bench('profile-summary.mjs'), ...side],
    /^ *[\d.]+ +[\d.]+ +0\.00 {2}all \(100 % of the other's\)$/m,
  );
}

/** [what, how]: `how` answers why the step failed, or null. */
const steps = [
  [
    'npm run bench -- --smoke: every scenario of the table, whole',
    () => check([...tool('run.mjs', '--smoke --out'), join(dir, 'run')], /^\| resume, /m, 10),
  ],
  [
    'compare.mjs --paired: mcpwire, and the ceiling with mcpwire resident (lib/resident-library.mjs), each beside a twin of the ceiling',
    () =>
      check(
        [
          ...tool('compare.mjs', '--paired --scenario calls --reps 1 --baseline ceiling --port-base 3950'),
          '--server',
          `ceiling=node ${bench('ceiling.mjs')} --port {port}`,
          '--server',
          `mcpwire=node ${bench('server.mjs')} --port {port}`,
          '--server',
          `resident=env RESIDENT_SECONDS=1 node --import ${bench('lib/resident-library.mjs')} ${bench('ceiling.mjs')} --port {port}`,
          ...'-- --duration 1 --warmup 0 --sessions 4'.split(' '),
        ],
        /^\| mcpwire \| 1\/1 \|.*\| [\d.]+ \[[\d.]+–[\d.]+\] \|\n\| resident \| 1\/1 \|.*\| [\d.]+ \[[\d.]+–[\d.]+\] \|$/m,
      ),
  ],
  // [scenario, the ceiling's flags beside --checks, the bench server's flags]: JSON answers, 2026-07-28, and SSE answers
  // beside the ceiling that also keeps every event for a resuming client as mcpwire's default event store does.
  ...[
    ['calls', '', ' --json'],
    ['modern', ' --modern', ''],
    ['calls', ' --sse --resumable', ''],
  ].map(([scenario, era, answers]) => [
    `compare.mjs --paired --scenario ${scenario}: mcpwire${answers} beside the ceiling that checks what the spec asks (--checks${era}), which refuses none of the harness's requests`,
    () =>
      check(
        [
          ...tool(
            'compare.mjs',
            `--paired --scenario ${scenario} --reps 1 --baseline checks --port-base 3960`,
          ),
          '--server',
          `checks=node ${bench('ceiling.mjs')}${era} --checks --port {port}`,
          '--server',
          `mcpwire=node ${bench('server.mjs')}${answers} --port {port}`,
          ...'-- --duration 1 --warmup 0 --sessions 4'.split(' '),
        ],
        /^\| checks \| 1\/1 \|.*\| 0\.00 \[0\.00–0\.00\] \|.*\n\| mcpwire \| 1\/1 \|.*\| [\d.]+ \[[\d.]+–[\d.]+\] \|$/m,
      ),
  ]),
  [
    'compare.mjs --scenario fanout: the resumable floor, and the same floor made slower on purpose (--spin-ns: 0.5 ms a stream, so its broadcast call takes 10 ms at least)',
    () =>
      check(
        [
          ...tool(
            'compare.mjs',
            '--scenario fanout --reps 1 --baseline floor --port-base 3970 --metrics all_delivered_median_ms,broadcast_call_median_ms',
          ),
          '--server',
          `floor=node ${bench('ceiling.mjs')} --sse --resumable --port {port}`,
          '--server',
          `slower=node ${bench('ceiling.mjs')} --sse --resumable --spin-ns 500000 --port {port}`,
          ...'-- --count 20 --rounds 2'.split(' '),
        ],
        /^\| slower \| 1\/1 \| [\d.]+ \[[\d.]+–[\d.]+\] \| (?:[1-9]\d|\d{3,})(?:\.\d+)? \[/m,
      ),
  ],
  [
    'cluster.mjs: legacy calls in memory and through Redis, 1 and 2 processes',
    () =>
      check(
        tool('cluster.mjs', '--workers 1,2 --duration 1 --warmup 1 --sessions 8'),
        /^\| Redis, 2 worker processes \|/m,
      ),
  ],
  [
    'cluster.mjs --scenario modern: in memory and through Redis',
    () =>
      check(
        tool('cluster.mjs', '--scenario modern --workers 1 --duration 1 --warmup 1 --sessions 8'),
        /^\| Redis, 1 process \|/m,
      ),
  ],
  [
    'redis-sizing.mjs',
    () =>
      check(
        tool('redis-sizing.mjs', '--sessions 20 --listens 10 --events 50 --calls 20'),
        /^\| modern \(2026-07-28/m,
      ),
  ],
  [
    'bridges.mjs: mcpwire serve -- CMD beside mcp-proxy and supergateway, the stdio floor, memory per session',
    () =>
      check(
        tool('bridges.mjs', '--reps 1 --duration 1 --warmup 0 --sessions 4 --rss-sessions 2'),
        /^\| supergateway \| [\d.]+ \| [\d.]+ \| -?\d+ \| \d+ → \d+ \|$/m,
      ),
  ],
  ['a profiled bench server, profile-summary.mjs, alloc-sampler.mjs', profiled],
  [
    'broadcast-cost.mjs',
    () =>
      check(
        tool('broadcast-cost.mjs', '--sessions 20 --rounds 3'),
        /^Server\.log to 20 sessions with no GET stream: median [\d.]+ ms/m,
      ),
  ],
  [
    'broadcast-cost.mjs --streams: over GET streams, beside the plain and the resumable floors',
    () =>
      check(
        tool('broadcast-cost.mjs', '--sessions 20 --rounds 3 --streams'),
        /^Server\.log to 20 GET streams: median [\d.]+ ms.*\n.*\n^a resumable server's loop: median [\d.]+ ms/m,
      ),
  ],
  ...['stateless', 'json', 'modern'].map((mode) => [
    `handler-cost.mjs --mode ${mode}`,
    () =>
      check(
        tool('handler-cost.mjs', `--mode ${mode} --calls 300 --rounds 2`),
        new RegExp(
          `^${mode}: mcpwire's handler [\\d.]+ µs and [\\d.]+ KB per call; the checking ceiling's work [\\d.]+ µs and [\\d.]+ KB`,
          'm',
        ),
      ),
  ]),
  [
    'handler-cost.mjs --serve: alone, with mcpwire beside, through the adapter, under compare.mjs',
    () =>
      check(
        [
          ...tool('compare.mjs', '--paired --scenario stateless --reps 1 --baseline alone --port-base 3970'),
          '--server',
          `alone=node ${bench('handler-cost.mjs')} --serve --port {port}`,
          '--server',
          `beside=node ${bench('handler-cost.mjs')} --serve --beside stateless --port {port}`,
          '--server',
          `adapter=node ${bench('handler-cost.mjs')} --serve --adapter --port {port}`,
          ...'-- --duration 1 --warmup 0 --sessions 4'.split(' '),
        ],
        /^\| beside \| 1\/1 \|.*\| [\d.]+ \[[\d.]+–[\d.]+\] \|\n\| adapter \| 1\/1 \|.*\| [\d.]+ \[[\d.]+–[\d.]+\] \|$/m,
      ),
  ],
  [
    'heap-per-session.mjs',
    async () =>
      check(
        tool('heap-per-session.mjs', `--count 100 --warm 20 --top 5 --port ${await freePort()}`),
        /idle sessions: \d+ B of heap each/,
      ),
  ],
  [
    'retention.mjs',
    async () =>
      check(
        tool('retention.mjs', `--count 100 --warm 20 --rounds 1 --idle 0 --port ${await freePort()}`),
        /retained after 0 s idle: -?\d/,
      ),
  ],
  [
    'store-window.mjs',
    () =>
      check(
        tool('store-window.mjs', '--calls 2000 --windows 65536'),
        /^\| 65536 \| 2000 \| [\d.]+ \| [\d.]+ \| \d+ \| \d+ \|$/m,
      ),
  ],
  [
    'alloc-ab.mjs',
    () =>
      check(
        [
          '--expose-gc',
          '--min-semi-space-size=128',
          '--max-semi-space-size=128',
          ...tool('alloc-ab.mjs', '--calls 200 --reps 1'),
        ],
        /^modern\t.*\t\d+ \[/m,
      ),
  ],
];

const started = Date.now();
const results = [];
for (const [what, how] of steps) {
  console.error(`\n=== bench smoke: ${what}`);
  const t0 = Date.now();
  let why;
  try {
    why = await how();
  } catch (e) {
    why = `threw ${e.stack}`;
  }
  results.push({ what, why, s: Math.round((Date.now() - t0) / 1000) });
}
const failed = results.filter((r) => r.why !== null);
console.log(
  `\nbench smoke: ${results.length - failed.length} of ${results.length} whole in ${Math.round((Date.now() - started) / 1000)} s`,
);
for (const r of results)
  console.log(`  ${r.why === null ? 'ok  ' : 'FAIL'} ${r.what} (${r.s} s)${r.why ? `: ${r.why}` : ''}`);
if (failed.length) {
  console.log(`runs, server logs and profiles kept in ${dir}`);
  process.exitCode = 1;
} else rmSync(dir, { recursive: true, force: true });
