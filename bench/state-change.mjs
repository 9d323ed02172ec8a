#!/usr/bin/env node
// What read-your-writes of a session's state costs (issue 21, part 4): a logging/setLevel answered by one process of
// a cluster waits until the other processes holding the session have applied it. Against a redis-server of its own,
// with 1 + k processes (`bench/cluster.mjs --serve --redis`, the same library calls as `mcpwire serve --redis`), each
// session initialized on process 0 and loaded by processes 1..k (k other processes hold it):
//   - latency of a logging/setLevel through process 0, and of a tools/call echo through the last process, one
//     request at a time (from the POST to its JSON-RPC answer);
//   - Redis commands per setLevel and per call: INFO commandstats deltas (every command Redis ran, those inside
//     scripts too), by name.
// --dist [NAME=]DIR (repeatable): the builds to compare (default ../dist), measured in turn, their order alternating
// from one repetition to the next; --reps N: medians of the repetitions.
//
//   npm run build && npm ci --prefix bench && node bench/state-change.mjs [--sessions 100] [--rounds 4]
//                                              [--others 0,1,2] [--reps 1] [--dist [NAME=]DIR …]
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseBuilds } from './lib/builds.mjs';
import { endpoint, McpSession } from './lib/mcp.mjs';
import { redisCommand, startRedis, waitFor } from './lib/redis-server.mjs';
import { median, summarize } from './lib/stats.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

const { values: a } = parseArgs({
  options: {
    sessions: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '4' },
    others: { type: 'string', default: '0,1,2' },
    reps: { type: 'string', default: '1' },
    dist: { type: 'string', multiple: true },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

const builds = parseBuilds(a.dist, here('../dist'));

/** `count` server processes of `build` sharing `redis`, resolved with their MCP URLs once each serves. */
async function startProcesses(build, redis, count) {
  const children = [];
  const urls = [];
  for (let i = 0; i < count; i++) {
    const args = [here('./cluster.mjs'), '--serve', '--port', '0', '--redis', redis.url, '--dist', build.dir];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    urls.push(
      await waitFor(
        () => /bench server on (http:\S+)/.exec(output)?.[1],
        15_000,
        () => `process ${i} of ${build.name} to serve:\n${output}`,
      ),
    );
  }
  const stop = async () => {
    await Promise.all(
      children.map((child) => {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        return exited;
      }),
    );
  };
  return { urls, stop };
}

/** INFO commandstats: calls so far, by command name. */
async function commandStats(port) {
  const out = new Map();
  for (const m of (await redisCommand(port, 'INFO commandstats')).matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) {
    out.set(m[1], Number(m[2]));
  }
  return out;
}

/** Runs `op(i)` `count` times, one at a time: latencies (ms) and Redis commands per op, by name. */
async function measureOps(port, count, op) {
  const before = await commandStats(port);
  const latencies = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const r = await op(i);
    if (r.status !== 200 || !r.response?.result) {
      throw new Error(`request ${i} failed: HTTP ${r.status} ${JSON.stringify(r.response)}`);
    }
    latencies.push(r.tResponse - started);
  }
  const after = await commandStats(port);
  const perOp = new Map();
  for (const [name, calls] of after) {
    const d = calls - (before.get(name) ?? 0);
    if (d > 0 && name !== 'info') perOp.set(name, d / count);
  }
  return { ...summarize(latencies), commands: perOp };
}

/** One measurement: `build`, with `others` processes holding each session beside the one that changes it. */
async function measure(build, others, o) {
  const redis = await startRedis();
  const processes = await startProcesses(build, redis, others + 1);
  const eps = processes.urls.map((url) => endpoint(url, 4));
  try {
    const sessions = [];
    for (let i = 0; i < o.sessions; i++) {
      const first = new McpSession(eps[0]);
      await first.initialize();
      // The same session through every process: each of the others loads it (a call) and holds a replica.
      const through = eps.map((ep, j) => {
        if (j === 0) return first;
        const s = new McpSession(ep);
        Object.assign(s, { sid: first.sid, version: first.version, headers: first.headers });
        return s;
      });
      for (const s of through.slice(1)) await s.callTool('echo', { text: 'load' });
      sessions.push(through);
    }
    const count = o.sessions * o.rounds;
    const levels = ['error', 'info'];
    const setLevel = await measureOps(redis.port, count, (i) =>
      sessions[i % o.sessions][0].request('logging/setLevel', {
        level: levels[Math.floor(i / o.sessions) % 2],
      }),
    );
    const call = await measureOps(redis.port, count, (i) =>
      sessions[i % o.sessions][others].callTool('echo', { text: `x${i}` }),
    );
    return { build: build.name, others, setLevel, call };
  } finally {
    await Promise.all(eps.map((ep) => ep.close()));
    await processes.stop();
    await redis.stop();
  }
}

/** Commands per op in all, and by name (the most first). */
function describeCommands(runs) {
  const names = new Set(runs.flatMap((r) => [...r.keys()]));
  const by = [...names].map((name) => [name, median(runs.map((r) => r.get(name) ?? 0))]);
  by.sort((x, y) => y[1] - x[1]);
  const total = by.reduce((sum, [, n]) => sum + n, 0);
  return `${total.toFixed(2)}: ${by.map(([name, n]) => `${name} ${n.toFixed(2)}`).join(', ')}`;
}

async function main() {
  if (a.help) {
    console.log(
      'usage: node bench/state-change.mjs [--sessions N] [--rounds N] [--others 0,1,2] [--reps N] [--dist [NAME=]DIR …]',
    );
    return 0;
  }
  const o = { sessions: Number(a.sessions), rounds: Number(a.rounds), reps: Number(a.reps) };
  const others = a.others.split(',').map(Number);
  const results = [];
  for (let rep = 0; rep < o.reps; rep++) {
    const order = rep % 2 === 0 ? builds : [...builds].reverse();
    for (const k of others) for (const build of order) results.push(await measure(build, k, o));
  }
  console.log(
    `# A logging/setLevel and a tools/call through a cluster (${o.sessions} sessions × ${o.rounds} rounds, one at a time; ${o.reps} repetition(s), medians)\n`,
  );
  console.log(
    '| build | other processes holding the session | setLevel p50 / p90 ms | Redis commands per setLevel | tools/call p50 / p90 ms | Redis commands per call |',
  );
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const k of others) {
    for (const build of builds) {
      const runs = results.filter((r) => r.build === build.name && r.others === k);
      const ms = (part, p) => median(runs.map((r) => r[part][`${p}_ms`])).toFixed(2);
      console.log(
        `| ${build.name} | ${k} | ${ms('setLevel', 'p50')} / ${ms('setLevel', 'p90')} | ${describeCommands(runs.map((r) => r.setLevel.commands))} | ${ms('call', 'p50')} / ${ms('call', 'p90')} | ${describeCommands(runs.map((r) => r.call.commands))} |`,
      );
    }
  }
  return 0;
}

process.exitCode = await main();
