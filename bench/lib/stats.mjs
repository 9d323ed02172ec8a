// Latency summaries and /proc readers (server RSS, CPU of both processes, steal time).

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Nearest-rank percentiles of a list of milliseconds, rounded to 0.01 ms. */
export function summarize(latencies, prefix = '') {
  const a = Float64Array.from(latencies).sort();
  const pick = (p) => (a.length ? a[Math.min(a.length - 1, Math.ceil((p / 100) * a.length) - 1)] : null);
  const r2 = (x) => (x === null ? null : Math.round(x * 100) / 100);
  let sum = 0;
  for (const x of a) sum += x;
  return {
    [`${prefix}p50_ms`]: r2(pick(50)),
    [`${prefix}p90_ms`]: r2(pick(90)),
    [`${prefix}p99_ms`]: r2(pick(99)),
    [`${prefix}max_ms`]: r2(a.length ? a[a.length - 1] : null),
    [`${prefix}mean_ms`]: r2(a.length ? sum / a.length : null),
  };
}

/** The median of the finite numbers of `xs` (NaN when there is none). */
export function median(xs) {
  const s = xs.filter(Number.isFinite).sort((x, y) => x - y);
  if (s.length === 0) return Number.NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export const round = (x, d = 1) =>
  x === null || x === undefined || Number.isNaN(x) ? null : Math.round(x * 10 ** d) / 10 ** d;

/**
 * Server CPU per call in µs, from a run's `server_cpu_pct` and `calls_per_s` (undefined without both): what
 * a call costs the server, the figure neighbours on the machine move least.
 */
export const cpuUsPerCall = (r) =>
  r.calls_per_s && r.server_cpu_pct ? (r.server_cpu_pct * 1e4) / r.calls_per_s : undefined;

/** VmRSS (and VmHWM) of a process in KiB, from /proc/PID/status. */
export function readRss(pid) {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number((s.match(new RegExp(`^${k}:\\s+(\\d+)\\s+kB`, 'm')) ?? [])[1] ?? NaN);
  return { rss_kb: kb('VmRSS'), hwm_kb: kb('VmHWM') };
}

let clkTck;
function ticksPerSecond() {
  if (clkTck === undefined) {
    try {
      clkTck = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
    } catch {
      clkTck = 100;
    }
  }
  return clkTck;
}

/** user+system CPU seconds of a process, from /proc/PID/stat; a process gone is said in those words. */
function procCpuSeconds(pid) {
  let s;
  try {
    s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
    // Most often a server that exited at start, e.g. because another run holds its port.
    throw new Error(`the measured process ${pid} is no longer running: see its log`);
  }
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / ticksPerSecond(); // utime, stime
}

/** Machine-wide steal and busy ticks, from the first line of /proc/stat. */
function machineTicks() {
  const lines = readFileSync('/proc/stat', 'utf8').split('\n');
  const f = lines[0].trim().split(/\s+/).slice(1).map(Number);
  const total = f.slice(0, 8).reduce((x, y) => x + y, 0);
  // all cores of the machine (not this process's affinity, which taskset narrows)
  const ncpu = lines.filter((l) => /^cpu\d/.test(l)).length;
  return { total, idle: f[3] + f[4], steal: f[7] ?? 0, ncpu };
}

/**
 * Measures, over a window: this process's CPU (the load generator), the server's CPU (if a pid is
 * given), machine busy % and steal %. CPU % is of one core (100 = one core saturated).
 */
export class CpuMeter {
  constructor(pid) {
    this.pid = pid;
  }
  start() {
    this.t0 = performance.now();
    this.self0 = process.cpuUsage();
    this.srv0 = this.pid ? procCpuSeconds(this.pid) : 0;
    this.m0 = machineTicks();
  }
  stop() {
    const wall = (performance.now() - this.t0) / 1000;
    const self = process.cpuUsage(this.self0);
    const m1 = machineTicks();
    const dt = m1.total - this.m0.total || 1;
    const out = {
      client_cpu_pct: round(((self.user + self.system) / 1e6 / wall) * 100),
      machine_busy_pct: round((1 - (m1.idle - this.m0.idle) / dt) * 100),
      steal_pct: round(((m1.steal - this.m0.steal) / dt) * 100),
    };
    if (this.pid) {
      out.server_cpu_pct = round(((procCpuSeconds(this.pid) - this.srv0) / wall) * 100);
      // CPU used by everything else on the machine (% of one core): > ~10 flags a noisy run
      out.other_cpu_pct = round(
        Math.max(0, out.machine_busy_pct * this.m0.ncpu - out.server_cpu_pct - out.client_cpu_pct),
      );
    }
    return out;
  }
}

/**
 * The window a closed loop counts: `warmup` seconds from now, then `duration` seconds (`tMeasure` to `tEnd`, on
 * performance.now()), with the CPU of `pid` and of this process metered over it. `cpu()` is the reading, taken when
 * the window ends or, called before that, at once; the timers are cleared then.
 */
export function meteredWindow(pid, warmup, duration) {
  const meter = new CpuMeter(pid);
  const t0 = performance.now();
  const tMeasure = t0 + warmup * 1000;
  const tEnd = tMeasure + duration * 1000;
  let reading;
  const timers = [
    setTimeout(() => meter.start(), tMeasure - t0),
    setTimeout(() => {
      reading = meter.stop();
    }, tEnd - t0),
  ];
  return {
    tMeasure,
    tEnd,
    cpu() {
      for (const timer of timers) clearTimeout(timer);
      reading ??= meter.stop();
      return reading;
    },
  };
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Resolves p, or undefined after ms. */
export const within = (p, ms) => {
  let t;
  return Promise.race([
    p,
    new Promise((r) => {
      t = setTimeout(r, ms);
    }),
  ]).finally(() => clearTimeout(t));
};

/** Run fn(i) for i in [0, n) with at most `concurrency` in flight. Returns results in order. */
export async function pool(n, concurrency, fn) {
  const out = new Array(n);
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      out[i] = await fn(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, concurrency) }, worker));
  return out;
}

/** Counts errors by kind and keeps a few samples. */
export class Errors {
  constructor() {
    this.count = 0;
    this.kinds = {};
    this.samples = [];
  }
  add(kind, detail) {
    this.count++;
    this.kinds[kind] = (this.kinds[kind] ?? 0) + 1;
    if (this.samples.length < 5) this.samples.push(`${kind}: ${String(detail).slice(0, 200)}`);
  }
  toJSON() {
    return this.count
      ? { errors: this.count, error_kinds: this.kinds, error_samples: this.samples }
      : { errors: 0 };
  }
}
