#!/usr/bin/env node
// Side-by-side driver: for each repetition, starts each server in turn (fresh process, pinned to
// one core), runs one bench scenario against it (pinned to the other core), stops it by PID, and
// alternates the order every repetition so drift on a noisy machine hits every server alike.
// Prints medians with [min-max] and ratios to a baseline server; appends raw JSON lines to --out.
//
//   node compare.mjs --scenario calls --reps 5 \
//     --server 'ceiling=node ceiling.mjs --port {port}' \
//     --server 'sdk=node ../sdk-server.mjs --port {port}' \
//     [--baseline ceiling] [--out results.jsonl] [--md table.md] [--no-pin] [--paired] -- --duration 10 --sessions 32
//
// --paired: each server runs at the same time as a twin of the baseline (both servers on the server core, both
// loads on the client core), and its ratios are each run's own, median [min-max]: on a machine whose speed drifts
// from minute to minute, both sides of a ratio then see the same machine. Each server gets half of each core, so
// absolute figures are about half of a run alone (and other_cpu_pct counts the twin); ratios are what such a run
// is for.
import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cpuUsPerCall, round } from './lib/stats.mjs';

const { values: a, positionals: benchArgs } = parseArgs({
  allowPositionals: true,
  options: {
    scenario: { type: 'string', default: 'calls' },
    server: { type: 'string', multiple: true, default: [] },
    reps: { type: 'string', default: '5' },
    baseline: { type: 'string' },
    out: { type: 'string' },
    md: { type: 'string' },
    'log-dir': { type: 'string', default: '/tmp/mcp-bench-logs' },
    'port-base': { type: 'string', default: '3900' },
    path: { type: 'string', default: '/mcp' },
    'no-pin': { type: 'boolean', default: false },
    paired: { type: 'boolean', default: false },
    'server-cpus': { type: 'string', default: '1' },
    'client-cpus': { type: 'string', default: '0' },
    metrics: { type: 'string' },
  },
});

const servers = a.server.map((s, i) => {
  const eq = s.indexOf('=');
  if (eq < 1) throw new Error(`--server must be NAME=COMMAND, got ${s}`);
  return { name: s.slice(0, eq), cmd: s.slice(eq + 1), port: Number(a['port-base']) + i };
});
if (!servers.length) {
  console.error('give at least one --server NAME=COMMAND (use {port} in COMMAND)');
  process.exit(1);
}
const reps = Number(a.reps);
const pin = !a['no-pin'] && availableParallelism() >= 2;
const benchPath = fileURLToPath(new URL('./bench.mjs', import.meta.url));
mkdirSync(a['log-dir'], { recursive: true });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// the figures of a closed loop of tool calls (calls, stateless, modern)
const CALL_METRICS = [
  'calls_per_s',
  'cpu_us_per_call',
  'p50_ms',
  'p99_ms',
  'server_cpu_pct',
  'client_cpu_pct',
  'errors',
  'other_cpu_pct',
];
const KEY_METRICS = {
  calls: CALL_METRICS,
  stateless: CALL_METRICS,
  modern: CALL_METRICS,
  payload: [
    'mib_per_s',
    'calls_per_s',
    'p50_ms',
    'p99_ms',
    'rss_hwm_mib',
    'server_cpu_pct',
    'client_cpu_pct',
    'errors',
    'other_cpu_pct',
  ],
  sessions: [
    'rss_per_session_kb',
    'heap_per_session_kb',
    'open_per_s',
    'server_cpu_ms_per_open',
    'retained_after_delete_kb_per_session',
    'errors',
    'other_cpu_pct',
  ],
  fanout: [
    'delivery_p50_ms',
    'delivery_p99_ms',
    'delivery_max_ms',
    'all_delivered_median_ms',
    'missing',
    'errors',
    'other_cpu_pct',
  ],
  resume: ['ok_pct', 'replay_p50_ms', 'first_replayed_p50_ms', 'streams_left_open', 'failures'],
};
const metrics = a.metrics ? a.metrics.split(',') : (KEY_METRICS[a.scenario] ?? ['calls_per_s']);

/** Whether something answers on `port`. */
function answers(port) {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

async function waitForPort(port, child, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before listening`);
    if (await answers(port)) return;
    if (Date.now() > deadline) throw new Error(`port ${port} not open after ${timeoutMs} ms`);
    await sleep(50);
  }
}

async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM'); // our own child, by PID
  if (await Promise.race([exited.then(() => true), sleep(5000).then(() => false)])) return;
  child.kill('SIGKILL');
  await exited;
}

function runBench(url, pid, label) {
  const args = [benchPath, a.scenario, '--url', url, '--pid', String(pid), '--label', label, ...benchArgs];
  const [cmd, argv] = pin
    ? ['taskset', ['-c', a['client-cpus'], process.execPath, ...args]]
    : [process.execPath, args];
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 20 * 60_000); // bench has its own watchdog
    child.on('exit', () => {
      clearTimeout(killer);
      const line = out.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(line));
      } catch {
        resolve({ error: `unparsable bench output: ${line.slice(0, 200)}` });
      }
    });
  });
}

/** Starts one server, its output to a log of log-dir named for `label`. */
function start(s, rep, label) {
  const log = `${a['log-dir']}/${a.scenario}-${label}-${rep}.log`;
  const fd = openSync(log, 'w');
  const cmd = s.cmd.replaceAll('{port}', String(s.port));
  const child = spawn('sh', ['-c', `exec ${pin ? `taskset -c ${a['server-cpus']} ` : ''}${cmd}`], {
    stdio: ['ignore', fd, fd],
    env: { ...process.env, PORT: String(s.port) },
  });
  closeSync(fd);
  return { s, label, log, child };
}

/** Runs the servers at the same time (one, or two with --paired), each under its own load, and stops them. */
async function runTogether(list, rep) {
  const started = list.map(({ s, label }) => start(s, rep, label));
  let results;
  try {
    await Promise.all(started.map(({ s, child }) => waitForPort(s.port, child)));
    await sleep(300);
    results = await Promise.all(
      started.map(({ s, label, child }) => runBench(`http://127.0.0.1:${s.port}${a.path}`, child.pid, label)),
    );
  } catch (e) {
    results = started.map(() => ({ error: e.message }));
  } finally {
    await Promise.all(started.map(({ child }) => stop(child)));
  }
  return started.map(({ s, log }, i) => {
    const result = results[i];
    const logText = readFileSync(log, 'utf8');
    const perCall = cpuUsPerCall(result);
    if (perCall !== undefined) result.cpu_us_per_call = round(perCall, 2);
    result.server_log_error_lines = logText.split('\n').filter((l) => /error|warn|exception/i.test(l)).length;
    return { server: s.name, rep, pinned: pin, paired: a.paired, ...result, server_log: log };
  });
}

const base = a.baseline ?? servers[0].name;
const baseServer = servers.find((s) => s.name === base);
if (baseServer === undefined) throw new Error(`--baseline ${base} names no --server`);
// With --paired, the baseline's twin runs beside each other server, on a port of its own.
const twin = { ...baseServer, port: Number(a['port-base']) + servers.length };

/**
 * One repetition of one server: alone, or with --paired beside the baseline, each figure's ratio to the
 * baseline's in that run kept (`<metric>_paired_ratio`). Both results are returned: the server's first.
 */
async function runOne(s, rep) {
  if (!a.paired) return runTogether([{ s, label: s.name }], rep);
  const [r, b] = await runTogether(
    [
      { s, label: s.name },
      { s: twin, label: `${base}-beside-${s.name}` },
    ],
    rep,
  );
  for (const m of metrics) if (typeof r[m] === 'number' && b[m]) r[`${m}_paired_ratio`] = r[m] / b[m];
  if (b.error && !r.error) r.error = `the baseline beside it: ${b.error}`;
  return [r, b];
}

// A server left over from an earlier run would be measured in place of the one started (it answers first).
const ports = [...servers.map((s) => s.port), ...(a.paired ? [twin.port] : [])];
const busy = (await Promise.all(ports.map(answers))).flatMap((taken, i) => (taken ? [ports[i]] : []));
if (busy.length > 0) {
  console.error(
    `port ${busy.join(', ')} already answers on 127.0.0.1: stop what listens there, or give another --port-base`,
  );
  process.exit(1);
}

const results = [];
for (let rep = 1; rep <= reps; rep++) {
  const order = rep % 2 ? servers : [...servers].reverse();
  for (const s of order) {
    if (a.paired && s === baseServer) continue;
    const [r, ...beside] = await runOne(s, rep);
    results.push(r, ...beside);
    if (a.out) for (const x of [r, ...beside]) appendFileSync(a.out, JSON.stringify(x) + '\n');
    const brief = metrics.map((m) => `${m}=${r[m] ?? '-'}`).join(' ');
    console.error(`[${a.scenario} rep ${rep}/${reps}] ${s.name}: ${r.error ? 'ERROR ' + r.error : brief}`);
    await sleep(500);
  }
}

// ---- summary: median [min-max] per server; ratio of medians to the baseline, or with --paired the median
// [min-max] of each run's ratio to the baseline beside it ----
const median = (xs) => {
  const v = xs.filter((x) => typeof x === 'number' && !Number.isNaN(x)).sort((x, y) => x - y);
  if (!v.length) return null;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};
const fmt = (x) =>
  x === null ? '-' : Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2);
const spread = (rs, key) => {
  const xs = rs.map((r) => r[key]).filter((x) => typeof x === 'number');
  return {
    med: median(xs),
    min: xs.length ? Math.min(...xs) : null,
    max: xs.length ? Math.max(...xs) : null,
  };
};
const cell = (x) => `${fmt(x.med)} [${fmt(x.min)}–${fmt(x.max)}]`;
const med = {};
const paired = {};
for (const s of servers) {
  const rs = results.filter((r) => r.server === s.name && !r.error);
  med[s.name] = Object.fromEntries(metrics.map((m) => [m, spread(rs, m)]));
  med[s.name].ok = rs.length;
  paired[s.name] = Object.fromEntries(metrics.map((m) => [m, spread(rs, `${m}_paired_ratio`)]));
}
// Runs each server was meant to have: with --paired the baseline ran beside every other server.
const runsOf = (s) => (a.paired && s === baseServer ? reps * (servers.length - 1) : reps);
const lines = [];
lines.push(
  `### ${a.scenario} — ${reps} reps, ${pin ? `server pinned to cpu ${a['server-cpus']}, load generator to cpu ${a['client-cpus']}` : 'unpinned'}; bench args: ${benchArgs.join(' ') || '(defaults)'}`,
);
lines.push('');
lines.push(
  `| server | runs ok | ${metrics.map((m) => `${m} median [min–max]`).join(' | ')} | ${metrics
    .slice(0, 3)
    .map((m) => `${m} ÷ ${base}${a.paired ? ' (each run beside it)' : ''}`)
    .join(' | ')} |`,
);
lines.push(`|${'---|'.repeat(2 + metrics.length + Math.min(3, metrics.length))}`);
for (const s of servers) {
  const m = med[s.name];
  const cells = metrics.map((k) => cell(m[k]));
  const ratios = metrics.slice(0, 3).map((k) => {
    if (a.paired) return s === baseServer ? '1.00' : cell(paired[s.name][k]);
    const b = med[base]?.[k]?.med;
    return b && m[k].med !== null ? (m[k].med / b).toFixed(2) : '-';
  });
  lines.push(`| ${s.name} | ${m.ok}/${runsOf(s)} | ${cells.join(' | ')} | ${ratios.join(' | ')} |`);
}
const errs = results.filter((r) => r.error);
if (errs.length) lines.push('', ...errs.map((r) => `- ${r.server} rep ${r.rep}: ERROR ${r.error}`));
const table = lines.join('\n');
console.log(table);
if (a.md) appendFileSync(a.md, table + '\n\n');
