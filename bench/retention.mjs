#!/usr/bin/env node
// Where the RSS that stays after DELETE lives: starts the bench server (pinned to cpu 1 when there are two, --expose-gc), opens
// `--warm` sessions, then `--rounds` times opens `--count` sessions and DELETEs them all, and after each step
// forces a GC and prints the server's RSS with V8's young generation (new space) and old space; at the end it
// waits `--idle` seconds and reads once more. A leak grows with every round; V8's own sizing grows once and
// is given back when the process has been idle for a while.
//
//   npm run build && node bench/retention.mjs [--count 10000] [--rounds 3] [--idle 20] [--port 3960] [-- server flags]
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { startBenchServer } from './lib/bench-server.mjs';
import { pool, readRss, sleep } from './lib/stats.mjs';

const { values: a, positionals: serverFlags } = parseArgs({
  allowPositionals: true,
  options: {
    count: { type: 'string', default: '10000' },
    warm: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
    idle: { type: 'string', default: '20' },
    port: { type: 'string', default: '3960' },
  },
});
const { server, open, stop } = await startBenchServer({
  port: a.port,
  nodeFlags: ['--expose-gc'],
  serverFlags,
  pin: availableParallelism() > 1 ? 1 : undefined,
});
const mib = (bytes) => (bytes / 1048576).toFixed(1);

/** Forces a GC through the bench server's gc tool, then reads RSS; prints a line and returns the RSS in KB. */
async function reading(label, session) {
  const r = await session.callTool('gc', {});
  const m = JSON.parse(r.response.result.content[0].text);
  await sleep(300);
  const rss = readRss(server.pid).rss_kb;
  const [newSpace] = m.spaces.new_space;
  const [oldSpace] = m.spaces.old_space;
  console.log(
    `${label.padEnd(26)} RSS ${(rss / 1024).toFixed(1)} MiB · new space ${mib(newSpace)} MiB · ` +
      `old space ${mib(oldSpace)} MiB · heap used ${mib(m.heapUsed)} MiB`,
  );
  return rss;
}

try {
  const count = Number(a.count);
  const warm = await open(Number(a.warm));
  await sleep(2000);
  const base = await reading('before', warm[0]);
  const perSession = (rss) => `${((rss - base) / count).toFixed(2)} KB per session`;
  for (let round = 1; round <= Number(a.rounds); round++) {
    const opened = await open(count);
    await sleep(2000);
    await reading(`round ${round}: ${count} open`, warm[0]);
    await pool(opened.length, 32, (i) => opened[i].close());
    await sleep(2000);
    console.log(
      `  retained 2 s after DELETE: ${perSession(await reading(`round ${round}: deleted`, warm[0]))}`,
    );
  }
  await sleep(Number(a.idle) * 1000);
  console.log(`  retained after ${a.idle} s idle: ${perSession(await reading('idle', warm[0]))}`);
  await pool(warm.length, 32, (i) => warm[i].close());
} finally {
  await stop();
}
