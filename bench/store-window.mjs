#!/usr/bin/env node
// What the in-memory event store costs per call by the size of its window, alone in one process: each call is what
// a 2025 tools/call answered over SSE does to it (open a stream, record the priming event and the answer, close
// the stream), over 32 sessions. CPU per call includes the garbage collector's threads; the first row makes the
// answers and records nothing, the floor of the others. The figures say what holding the window costs apart from
// the rest of the server (bench/README.md, issue 22 part 4).
//
//   npm run build && node bench/store-window.mjs [--windows 65536,10485760] [--calls 1000000] [--lib DIST/index.js]
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: a } = parseArgs({
  options: {
    windows: { type: 'string', default: `${64 * 1024},${10 * 1024 * 1024}` },
    calls: { type: 'string', default: '1000000' },
    lib: { type: 'string' },
  },
});
const lib = a.lib === undefined ? new URL('../dist/index.js', import.meta.url) : pathToFileURL(a.lib);
const { MemoryEventStore } = await import(lib.href);
const CALLS = Number(a.calls);

// Answers as serialize() makes them: flat strings, a different one per call (an echo of about 200 characters).
const answer = (n) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: n,
    result: { content: [{ type: 'text', text: 'hello world '.repeat(14) }] },
  });

/** What recording nothing costs: the answers are made, and dropped. */
const nothing = { open() {}, append() {}, streamClosed() {}, streamCount: 0, purgedEvents: 0 };

function calls(store, from, count) {
  for (let n = from; n < from + count; n++) {
    const session = `session-${n & 31}`;
    const stream = String(n);
    store.open(session, stream);
    store.append(session, stream, '');
    store.append(session, stream, answer(n));
    store.streamClosed(session, stream);
  }
}

console.log(
  '| window (bytes) | calls | CPU per call (µs) | wall per call (µs) | streams held | events purged |',
);
console.log(
  '| -------------- | ----- | ----------------- | ------------------ | ------------ | ------------- |',
);
for (const maxBytes of [0, ...a.windows.split(',').map(Number)]) {
  const store = maxBytes === 0 ? nothing : new MemoryEventStore({ maxBytes });
  // Warm up to a full window first: what is measured is the steady state, purging as much as it records.
  calls(store, 0, Math.ceil(CALLS / 5));
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  calls(store, CALLS, CALLS);
  const wallUs = Number(process.hrtime.bigint() - start) / 1000;
  const used = process.cpuUsage(cpu);
  console.log(
    `| ${maxBytes || 'none'} | ${CALLS} | ${((used.user + used.system) / CALLS).toFixed(2)} | ${(wallUs / CALLS).toFixed(2)} | ${store.streamCount} | ${store.purgedEvents} |`,
  );
}
