#!/usr/bin/env node
// What one idle session costs on the heap, by kind of object: starts the bench server with
// --heapsnapshot-signal, opens `--warm` sessions, takes a heap snapshot, opens `--count` more (idle,
// kept open), takes another, and prints the difference per session by constructor (self sizes; a
// snapshot is taken after a full GC, so only live objects count).
//
//   node bench/heap-per-session.mjs [--count 2000] [--warm 200] [--port 3950] [-- server flags, e.g. --no-event-store]
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startBenchServer } from './lib/bench-server.mjs';
import { sleep } from './lib/stats.mjs';

const { values: a, positionals: serverFlags } = parseArgs({
  allowPositionals: true,
  options: {
    count: { type: 'string', default: '2000' },
    warm: { type: 'string', default: '200' },
    port: { type: 'string', default: '3950' },
    top: { type: 'string', default: '25' },
  },
});
const dir = mkdtempSync(join(tmpdir(), 'mcpwire-heap-'));
const { server, open, stop } = await startBenchServer({
  port: a.port,
  nodeFlags: ['--heapsnapshot-signal=SIGUSR2'],
  serverFlags,
  cwd: dir,
});

/** Signals the server for a snapshot and waits until the file is complete. */
async function snapshot() {
  const before = new Set(readdirSync(dir));
  server.kill('SIGUSR2');
  for (let i = 0; i < 600; i++) {
    await sleep(100);
    const file = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    if (file === undefined) continue;
    try {
      const text = readFileSync(join(dir, file), 'utf8');
      return JSON.parse(text); // fails while the file is still being written
    } catch {}
  }
  throw new Error('no heap snapshot after 60 s');
}

/** Self size and count per kind of node. */
function byKind(s) {
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0];
  const [iType, iName, iSize] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const kinds = new Map();
  let total = 0;
  for (let i = 0; i < s.nodes.length; i += fields.length) {
    const type = types[s.nodes[i + iType]];
    const name = /string/.test(type) ? '' : s.strings[s.nodes[i + iName]].slice(0, 50);
    const key = `${type}${name ? ` ${name}` : ''}`;
    const k = kinds.get(key) ?? { size: 0, count: 0 };
    k.size += s.nodes[i + iSize];
    k.count++;
    kinds.set(key, k);
    total += s.nodes[i + iSize];
  }
  return { kinds, total };
}

try {
  await open(Number(a.warm));
  const before = byKind(await snapshot());
  const opened = await open(Number(a.count));
  const after = byKind(await snapshot());
  const n = opened.length;
  console.log(
    `${n} idle sessions: ${((after.total - before.total) / n).toFixed(0)} B of heap each (self sizes of live objects)`,
  );
  const rows = [...after.kinds].map(([key, k]) => {
    const o = before.kinds.get(key) ?? { size: 0, count: 0 };
    return [key, (k.size - o.size) / n, (k.count - o.count) / n];
  });
  rows.sort((x, y) => y[1] - x[1]);
  for (const [key, size, count] of rows.slice(0, Number(a.top))) {
    console.log(`${size.toFixed(0).padStart(6)} B  ${count.toFixed(2).padStart(6)} per session  ${key}`);
  }
} finally {
  await stop();
  rmSync(dir, { recursive: true, force: true });
}
