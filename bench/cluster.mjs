#!/usr/bin/env node
// Calls per second of mcpwire on several processes sharing one Redis (issue 6), beside one process with its
// sessions in memory: the `calls` scenario of bench.mjs (32 sessions looping tools/call echo) against
//   - 1 process, in-memory stores (the default deployment);
//   - 1 process, sessions and event store in Redis;
//   - 2 and 4 worker processes sharing the port (node:cluster, the supervision of `mcpwire serve --workers`)
//     and one Redis.
// It starts its own redis-server (no persistence, on a free port) and prints a table with the CPU each call
// costs, in mcpwire and in redis-server, so the overhead of Redis is stated, not guessed.
//
//   npm run build && node bench/cluster.mjs [--quick] [--scenario calls|modern] [--workers 1,2,4] [--duration 10] [--warmup 2]
//                                           [--sessions 32] [--reps N] [--max-other 15] [--dist [NAME=]DIR …] [--out results.jsonl]
//
// --dist: the build to serve (default ../dist); given more than once, an A/B: every build measured in every
// repetition, the order of builds alternating from one repetition to the next. --reps N: medians [min–max] of N.
// Each run reports the CPU that other processes took meanwhile ("other CPU %", of one core): a repetition with a
// run above --max-other (15) was disturbed by neighbours, and is left out of the medians when any is not.
//
// The server is this file run with --serve: the demo server of `mcpwire serve` has no echo tool of the shape
// the harness checks (`{text}` back as the text), so the bench tool is served here, through the same library
// calls as `mcpwire serve --redis URL --workers N` (RedisCluster given to StreamableHTTPHandler, superviseWorkers).
// No CPU pinning: workers are meant to spread over the cores, so the load generator and redis-server share them.
import { spawn, spawnSync } from 'node:child_process';
import cluster from 'node:cluster';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parseBuilds } from './lib/builds.mjs';
import { ECHO_TOOL, echo } from './lib/echo-tool.mjs';
import { redisCommand, redisCommands, sleep, startRedis, waitFor } from './lib/redis-server.mjs';
import { median } from './lib/stats.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

const { values: a } = parseArgs({
  options: {
    serve: { type: 'boolean', default: false },
    port: { type: 'string', default: '0' },
    redis: { type: 'string' },
    workers: { type: 'string' },
    quick: { type: 'boolean', default: false },
    scenario: { type: 'string', default: 'calls' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    sessions: { type: 'string', default: '32' },
    out: { type: 'string' },
    reps: { type: 'string', default: '1' },
    'max-other': { type: 'string', default: '15' },
    dist: { type: 'string', multiple: true },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

/** The builds to measure. */
const builds = parseBuilds(a.dist, here('../dist'));
const dist = (p) => pathToFileURL(`${builds[0].dir}/${p}`).href;

// ---- the server: `--serve --port P [--redis URL] [--workers N] [--dist DIR]` ----

async function serveMode() {
  const workers = Number(a.workers ?? '1');
  const { superviseWorkers, asWorker, announces } = await import(dist('cli/workers.js'));
  const log = (line) => process.stderr.write(`bench server: ${line}\n`);
  if (workers > 1 && cluster.isPrimary)
    return superviseWorkers(workers, { host: '127.0.0.1', port: Number(a.port) }, log);
  return asWorker(serveOne(announces(), log));
}

/** One process serving the harness's echo tool, as bench/server.mjs does, with the Redis cluster when asked. */
async function serveOne(announce, log) {
  const { Server, StreamableHTTPHandler } = await import(dist('index.js'));
  const server = new Server({ name: 'mcpwire-bench-cluster', version: '0.1.0' });
  server.tool(ECHO_TOOL, echo);
  let shared;
  if (a.redis !== undefined) {
    const { RedisCluster } = await import(dist('cluster/index.js'));
    shared = new RedisCluster({ redis: a.redis });
    await shared.whenReady();
  }
  const handler = new StreamableHTTPHandler(server, {
    cluster: shared,
    maxSessions: 20_000,
    onerror: (err) => log(`error: ${err?.message ?? err}`),
  });
  const http = createServer(handler.node());
  http.keepAliveTimeout = 65_000;
  await new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(Number(a.port), '127.0.0.1', resolve);
  });
  if (announce) console.log(`bench server on http://127.0.0.1:${http.address().port}/mcp`);
  await new Promise((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  http.close();
  await handler.close({ deadlineMs: 1000 });
  await Promise.all([server.close(), shared?.close()]);
  http.closeAllConnections();
  return 0;
}

// ---- the driver ----

async function drive() {
  if (a.help) {
    console.log(
      'usage: node bench/cluster.mjs [--quick] [--scenario calls|modern] [--workers 1,2,4] [--duration S] [--warmup S] [--sessions N] [--reps N] [--max-other PCT] [--dist [NAME=]DIR …] [--out FILE]',
    );
    return 0;
  }
  const missing = [];
  for (const b of builds)
    if (!existsSync(`${b.dir}/cluster/index.js`))
      missing.push(`the built library in ${b.dir}: run \`npm run build\` in its checkout`);
  if (!existsSync(here('./node_modules/undici/package.json')))
    missing.push('the harness dependency: run `npm ci --prefix bench`');
  if (spawnSync('redis-server', ['--version']).error)
    missing.push('redis-server on PATH (Debian: apt-get install -y redis-server)');
  if (missing.length) {
    console.error(`bench/cluster.mjs needs:\n${missing.map((m) => `  - ${m}`).join('\n')}`);
    return 1;
  }
  const duration = a.duration ?? (a.quick ? '3' : '10');
  const warmup = a.warmup ?? (a.quick ? '1' : '2');
  const counts = (a.workers ?? '1,2,4').split(',').map(Number);
  // `modern`: 2026-07-28 requests, no session (bench.mjs's modern scenario); `calls`: legacy sessions.
  if (a.scenario !== 'calls' && a.scenario !== 'modern') {
    console.error(`--scenario must be calls or modern, not ${JSON.stringify(a.scenario)}`);
    return 1;
  }

  const reps = Number(a.reps);
  const redis = await startRedis();
  const runs = [];
  try {
    for (let rep = 0; rep < reps; rep++) {
      const order = rep % 2 === 0 ? builds : [...builds].reverse();
      for (const build of order) {
        const setups = [
          { name: 'in-memory', processes: 1, redis: false, build },
          ...counts.map((n) => ({ name: 'redis', processes: n, redis: true, build })),
        ];
        for (const setup of setups) {
          if (setup.redis) await redisCommand(redis.port, 'FLUSHALL');
          const run = await measure(setup, redis, {
            duration,
            warmup,
            sessions: a.sessions,
            scenario: a.scenario,
          });
          run.rep = rep;
          runs.push(run);
          console.error(
            `${rep + 1}/${reps} ${build.name}, ${label(setup)}: ${Math.round(run.result.calls_per_s ?? 0)} calls/s, other CPU ${Math.round(run.other_cpu_pct)} %`,
          );
        }
      }
    }
  } finally {
    await redis.stop();
  }
  if (a.out) writeFileSync(a.out, runs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const o = {
    duration,
    warmup,
    sessions: a.sessions,
    scenario: a.scenario,
    reps,
    maxOther: Number(a['max-other']),
  };
  console.log(
    builds
      .map((b) =>
        table(
          runs.filter((r) => r.setup.build === b),
          b,
          o,
        ),
      )
      .join('\n\n'),
  );
  const faults = runs.flatMap((r) =>
    faultsOf(r).map((f) => `${r.setup.build.name}, ${label(r.setup)}: ${f}`),
  );
  if (faults.length) console.error(`not every run worked:\n${faults.map((f) => `  - ${f}`).join('\n')}`);
  return faults.length ? 1 : 0;
}

/** What keeps a run's row from being whole: an error, failed calls, a figure missing. None for a run that worked. */
function faultsOf(run) {
  const r = run.result;
  if (r.error) return [`error: ${r.error}`];
  const out = ['calls_per_s', 'p50_ms', 'p99_ms', 'client_cpu_pct']
    .filter((k) => !Number.isFinite(r[k]))
    .map((k) => `no ${k}`);
  if (r.errors) out.push(`${r.errors} failed calls ${JSON.stringify(r.error_samples ?? [])}`);
  if (!Number.isFinite(run.redis_commands_per_call)) out.push('no count of Redis commands');
  return out;
}

const label = (s) =>
  s.redis
    ? `Redis, ${s.processes} ${s.processes === 1 ? 'process' : 'worker processes'}`
    : 'in-memory, 1 process';

/** Starts the server for `setup`, runs the scenario (`calls` or `modern`) against it, and reads CPU use over the measured window. */
async function measure(setup, redis, o) {
  const args = [here('./cluster.mjs'), '--serve', '--port', '0', '--dist', setup.build.dir];
  if (setup.redis) args.push('--redis', redis.url);
  if (setup.processes > 1) args.push('--workers', String(setup.processes));
  const server = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  server.stdout.on('data', (c) => (output += c));
  server.stderr.on('data', (c) => (output += c));
  const exited = new Promise((resolve) => server.once('exit', resolve));
  try {
    const url = await waitFor(
      () => {
        const serving = (output.match(/ serving \(pid/g) ?? []).length;
        const m = /bench server on (http:\S+)/.exec(output);
        return m && (setup.processes === 1 || serving === setup.processes) ? m[1] : undefined;
      },
      15_000,
      () => `the server (${label(setup)}) to serve:\n${output}`,
    );

    const pids = () => [server.pid, ...childrenOf(server.pid)];
    const bench = spawn(
      process.execPath,
      [
        here('./bench.mjs'),
        o.scenario,
        '--url',
        url,
        '--duration',
        o.duration,
        '--warmup',
        o.warmup,
        '--sessions',
        o.sessions,
        '--label',
        label(setup),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let line = '';
    bench.stdout.on('data', (c) => (line += c));
    const done = new Promise((resolve) => bench.once('exit', resolve));
    // CPU over the measured window only: from the end of the warmup to the end of the run.
    await sleep(Number(o.warmup) * 1000);
    const sample = async () => ({
      at: performance.now(),
      server: cpuTicks(pids()),
      redis: cpuTicks([redis.pid]),
      machine: machineBusyTicks(),
      commands: setup.redis ? await redisCommands(redis.port) : 0,
    });
    const start = await sample();
    await sleep(Number(o.duration) * 1000);
    const end = await sample();
    await done;
    const result = JSON.parse(line.trim().split('\n').pop());
    const seconds = (end.at - start.at) / 1000;
    const tick = 1 / Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);
    const serverCpu = ((end.server - start.server) * tick) / seconds;
    const redisCpu = ((end.redis - start.redis) * tick) / seconds;
    // Everything else the machine ran meanwhile (% of one core): the load generator is in its result.
    const busy = ((end.machine - start.machine) * tick) / seconds;
    const other = busy - serverCpu - redisCpu - (result.client_cpu_pct ?? 0) / 100;
    // Less the INFO command of the sample itself.
    const commands = (end.commands - start.commands - 1) / seconds;
    return {
      setup,
      result,
      server_cpu_pct: serverCpu * 100,
      redis_cpu_pct: redisCpu * 100,
      other_cpu_pct: Math.max(0, other * 100),
      redis_commands_per_call: setup.redis ? commands / result.calls_per_s : 0,
    };
  } finally {
    server.kill('SIGTERM');
    const timer = setTimeout(() => server.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}

/** Medians [min–max] over the repetitions of one build: each Redis setup's calls/s ÷ in memory is taken per repetition. */
function table(all, build, o) {
  // Whole repetitions only, so that each ratio compares runs of the same minutes.
  const disturbed = new Set(all.filter((r) => !(r.other_cpu_pct <= o.maxOther)).map((r) => r.rep));
  const clean = all.filter((r) => !disturbed.has(r.rep));
  const runs = clean.length > 0 ? clean : all;
  const us = (r, pct) => (r.result.calls_per_s ? (pct / 100 / r.result.calls_per_s) * 1e6 : NaN);
  const f = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : '–');
  const spread = (xs, d = 0) =>
    xs.length > 1 ? `${f(median(xs), d)} [${f(Math.min(...xs), d)}–${f(Math.max(...xs), d)}]` : f(xs[0], d);
  const groups = new Map();
  for (const r of runs) {
    const key = label(r.setup);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  const base = groups.get(label({ redis: false })) ?? [];
  const ratio = (r, i) => r.result.calls_per_s / base[i]?.result.calls_per_s;
  const summary = {};
  const rows = [...groups].map(([name, rs]) => {
    const redis = rs[0].setup.redis;
    const row = {
      calls: rs.map((r) => r.result.calls_per_s),
      ratio: rs.map(ratio),
      mcpwire: rs.map((r) => us(r, r.server_cpu_pct)),
      redis: rs.map((r) => us(r, r.redis_cpu_pct)),
      commands: rs.map((r) => r.redis_commands_per_call),
    };
    summary[name] = row;
    const cells = [
      name,
      spread(row.calls),
      redis ? `${spread(row.ratio, 2)}×` : '1.00×',
      `${f(median(rs.map((r) => r.result.p50_ms)), 2)} / ${f(median(rs.map((r) => r.result.p99_ms)), 2)}`,
      `${f(median(row.mcpwire))} + ${redis ? f(median(row.redis)) : '0'}`,
      redis ? f(median(row.commands), 1) : '–',
      f(median(rs.map((r) => r.result.client_cpu_pct))),
      spread(rs.map((r) => r.other_cpu_pct)),
      `${rs.reduce((n, r) => n + (r.result.errors ?? 0), 0)}${rs.find((r) => r.result.error)?.result.error ?? ''}`,
    ];
    return `| ${cells.join(' | ')} |`;
  });
  const lines = [
    `${build.name} (${build.dir}): ${clean.length > 0 ? `${o.reps - disturbed.size} undisturbed repetition(s) of ${o.reps} (other CPU ≤ ${o.maxOther} % in each run)` : `every repetition disturbed (other CPU > ${o.maxOther} %): all ${o.reps} shown`}; ${o.scenario} scenario, ${o.sessions} ${o.scenario === 'modern' ? 'clients (2026-07-28, no session)' : 'sessions'}, tools/call echo back to back, ${o.duration} s measured after ${o.warmup} s warmup; ` +
      `${availableParallelism()} CPUs shared by the server processes, redis-server and the load generator; Node ${process.version}`,
    '',
    '| setup | calls/s | ÷ in-memory | p50 / p99 ms | CPU µs per call (mcpwire + redis) | Redis commands per call | load generator CPU % | other CPU % | errors |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ];
  const mem = summary[label({ redis: false })];
  const one = summary[label({ redis: true, processes: 1 })];
  if (mem && one) {
    lines.push(
      '',
      `Overhead of Redis, one process: ${f((1 - median(one.ratio)) * 100)} % fewer calls/s than in memory; each call costs ` +
        `${f(median(one.mcpwire) - median(mem.mcpwire))} µs more CPU in mcpwire and ${f(median(one.redis))} µs in redis-server ` +
        `(${f(median(one.mcpwire) + median(one.redis))} µs in all, against ${f(median(mem.mcpwire))} µs in memory).`,
    );
  }
  return lines.join('\n');
}

// ---- processes and CPU ----

/** utime + stime of `pids`, in clock ticks (processes gone count 0). */
function cpuTicks(pids) {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited meanwhile
    }
  }
  return ticks;
}

/** Busy clock ticks of the whole machine (every core), from /proc/stat. */
function machineBusyTicks() {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
  return f.reduce((x, y) => x + y, 0) - f[3] - f[4];
}

/** The pids whose parent is `ppid` (the workers of a primary). */
function childrenOf(ppid) {
  const out = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === ppid) out.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

// Last, once every declaration above is initialized.
process.exitCode = a.serve ? await serveMode() : await drive();
