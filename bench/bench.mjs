#!/usr/bin/env node
// mcp-bench: load generator for MCP Streamable HTTP servers. Prints one JSON line per run.
//   node bench.mjs <calls|stateless|modern|sessions|fanout|payload|resume> --url http://127.0.0.1:3000/mcp [options]
// See README.md for the options of each scenario and what the server must expose.
import { parseArgs } from 'node:util';
import { modern } from './lib/modern.mjs';
import { calls, fanout, payload, resume, sessions, stateless } from './lib/scenarios.mjs';

const scenarios = { calls, stateless, modern, sessions, fanout, payload, resume };

const spec = {
  url: { type: 'string', default: 'http://127.0.0.1:3000/mcp' },
  pid: { type: 'string' }, // server PID: enables server CPU % and RSS readings
  label: { type: 'string' },
  duration: { type: 'string' }, // seconds measured (calls, stateless, modern, payload)
  warmup: { type: 'string' }, // seconds run before measuring
  sessions: { type: 'string' }, // concurrent sessions / clients
  inflight: { type: 'string' }, // concurrent calls per session (calls, stateless, modern, payload)
  'text-bytes': { type: 'string' }, // echo text length
  size: { type: 'string' }, // blob size in bytes (payload)
  count: { type: 'string' }, // sessions to open (sessions, fanout) / notifications (resume)
  concurrency: { type: 'string' }, // parallel opens (sessions, fanout)
  'warm-sessions': { type: 'string' }, // sessions opened before the RSS baseline (sessions)
  settle: { type: 'string' }, // seconds to wait before reading RSS (sessions)
  'gc-tool': { type: 'string' }, // name of a server tool that forces GC and returns memoryUsage JSON
  delete: { type: 'boolean', default: false }, // sessions: DELETE them all and read RSS again
  'idle-after-delete': { type: 'string' }, // sessions --delete: seconds of idleness before a last reading
  rounds: { type: 'string' }, // broadcasts measured (fanout)
  'warmup-rounds': { type: 'string' }, // broadcasts before measuring (fanout)
  timeout: { type: 'string' }, // seconds to wait for a broadcast / a resume
  iterations: { type: 'string' }, // resume attempts
  'drop-after': { type: 'string' }, // notifications read before the connection is dropped (resume)
  'interval-ms': { type: 'string' }, // delay between the server's notifications (resume)
  'reconnect-delay-ms': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
};

const defaults = {
  calls: { sessions: 32, inflight: 1, duration: 10, warmup: 2, textBytes: 64 },
  stateless: { sessions: 32, inflight: 1, duration: 10, warmup: 2, textBytes: 64 },
  modern: { sessions: 32, inflight: 1, duration: 10, warmup: 2, textBytes: 64 },
  payload: { sessions: 4, inflight: 1, duration: 10, warmup: 2, size: 1024 * 1024 },
  sessions: { count: 10_000, concurrency: 32, warmSessions: 200, settle: 2, idleAfterDelete: 0 },
  fanout: { count: 1000, concurrency: 32, rounds: 5, warmupRounds: 1, timeout: 30 },
  resume: { count: 50, dropAfter: 5, iterations: 20, intervalMs: 0, reconnectDelayMs: 0, timeout: 10 },
};

const { values, positionals } = parseArgs({ options: spec, allowPositionals: true });
const scenario = positionals[0];
if (values.help || !defaults[scenario]) {
  console.error(
    `usage: node bench.mjs <${Object.keys(defaults).join('|')}> --url URL [--pid PID] [options]  (see README.md)`,
  );
  process.exit(values.help ? 0 : 1);
}

const camel = (k) => k.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
const o = { ...defaults[scenario], url: values.url, pid: values.pid ? Number(values.pid) : undefined };
for (const [k, v] of Object.entries(values)) {
  if (['url', 'pid', 'label', 'help'].includes(k) || v === undefined) continue;
  o[camel(k)] = typeof v === 'string' && k !== 'gc-tool' ? Number(v) : v;
}

// Hard stop: every run is bounded in time even if the server hangs.
const budgetS = {
  calls: o.warmup + o.duration + 60,
  stateless: o.warmup + o.duration + 60,
  modern: o.warmup + o.duration + 60,
  payload: o.warmup + o.duration + 60,
  sessions: 600,
  fanout: 120 + (o.rounds + o.warmupRounds) * (o.timeout + 1),
  resume: 30 + o.iterations * (o.timeout + 2),
}[scenario];
const head = {
  scenario,
  url: o.url,
  label: values.label,
  node: process.version,
  started_at: new Date().toISOString(),
};
setTimeout(() => {
  console.log(JSON.stringify({ ...head, error: `watchdog: run exceeded ${budgetS}s` }));
  process.exit(2);
}, budgetS * 1000).unref();

try {
  const result = await scenarios[scenario](o);
  const params = Object.fromEntries(Object.entries(o).filter(([k]) => !['url', 'pid'].includes(k)));
  console.log(JSON.stringify({ ...head, params, ...result }));
  process.exit(0);
} catch (e) {
  console.log(JSON.stringify({ ...head, error: e.message }));
  process.exit(1);
}
