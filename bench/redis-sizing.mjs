#!/usr/bin/env node
// What a cluster keeps in Redis and asks of it (issue 13, part 5), measured against a redis-server of its own:
//   - Redis memory per idle legacy session (initialized, nothing open), per open stream (a legacy GET stream; a
//     2026-07-28 listen stream) and per stored event: `INFO memory` before and after many of them, and
//     `MEMORY USAGE` of the keys of one;
//   - Redis commands per tools/call in each era: `INFO commandstats` before and after many calls (every command
//     Redis ran, those inside scripts included), and the commands mcpwire sent (MONITOR, less those of scripts).
// The server is in this process: the built library's StreamableHTTPHandler with a RedisCluster, serving `echo`
// as the other benchmarks do; the client is the harness's raw MCP client (bench/lib/mcp.mjs).
//
//   npm run build && npm ci --prefix bench && node bench/redis-sizing.mjs [--sessions 500] [--listens 200]
//                                       [--events 2000] [--calls 500] [--stream-node-max-bytes B (Redis's setting)]
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ECHO_TOOL, echo } from './lib/echo-tool.mjs';
import { endpoint, McpSession } from './lib/mcp.mjs';
import { sleep, startRedis, waitFor } from './lib/redis-server.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const dist = (p) => new URL(`../dist/${p}`, import.meta.url).href;

const { values: a } = parseArgs({
  options: {
    sessions: { type: 'string', default: '500' },
    listens: { type: 'string', default: '200' },
    events: { type: 'string', default: '2000' },
    calls: { type: 'string', default: '500' },
    'stream-node-max-bytes': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

const PREFIX = 'mcpwire';
/** A notification of the size the demo's are (a resources/updated, a progress): what an event usually holds. */
const EVENT = JSON.stringify({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 'call-42', progress: 3, total: 10, message: 'step 3 of 10' },
});

async function main() {
  if (a.help) {
    console.log('usage: node bench/redis-sizing.mjs [--sessions N] [--listens N] [--events N] [--calls N]');
    return 0;
  }
  const missing = [];
  if (!existsSync(here('../dist/cluster/index.js'))) missing.push('the built library: run `npm run build`');
  if (!existsSync(here('./node_modules/undici/package.json'))) missing.push('run `npm ci --prefix bench`');
  if (missing.length) {
    console.error(`bench/redis-sizing.mjs needs:\n${missing.map((m) => `  - ${m}`).join('\n')}`);
    return 1;
  }
  const n = {
    sessions: Number(a.sessions),
    listens: Number(a.listens),
    events: Number(a.events),
    calls: Number(a.calls),
  };
  const redis = await startRedis();
  const { Redis } = await import('ioredis');
  const r = new Redis(redis.url);
  const served = await serve(redis.url);
  // A connection for each stream held open, and some for the calls.
  const ep = endpoint(served.url, n.sessions + n.listens + 16);
  const open = [];
  try {
    const version = /redis_version:(\S+)/.exec(await r.info('server'))?.[1];
    if (a['stream-node-max-bytes'] !== undefined) {
      await r.config('SET', 'stream-node-max-bytes', a['stream-node-max-bytes']);
    }
    const nodeBytes = (await r.config('GET', 'stream-node-max-bytes'))[1];
    console.log(
      `# Redis sizing of mcpwire's cluster (redis-server ${version}, stream-node-max-bytes ${nodeBytes}; Node ${process.version})\n`,
    );
    // Warm up: scripts loaded, the request-state keys made, one of everything done once.
    const warm = new McpSession(ep);
    await warm.initialize();
    await warm.callTool('echo', { text: 'warm' });

    // Idle sessions: initialized, then nothing.
    let before = await usedMemory(r);
    const sessions = [];
    for (let i = 0; i < n.sessions; i += 50) {
      const batch = Array.from({ length: Math.min(50, n.sessions - i) }, () => new McpSession(ep));
      await Promise.all(batch.map((s) => s.initialize()));
      sessions.push(...batch);
    }
    const perSession = ((await usedMemory(r)) - before) / n.sessions;
    const sampleKeys = await keysOf(r, sessions[0].sid);

    // Their GET streams opened (and held: announced in the record).
    before = await usedMemory(r);
    for (const s of sessions) open.push(s.openStream());
    await Promise.all(open.map((o) => o.ready));
    await waitFor(
      async () => (await heldCount(r, sessions)) === sessions.length || undefined,
      20_000,
      () => 'every GET stream to be announced',
    );
    const perGet = ((await usedMemory(r)) - before) / n.sessions;
    const heldKeys = await keysOf(r, sessions[0].sid);

    // Listen streams of the 2026-07-28 era (one principal: anonymous). They add one member to one key, so a
    // resize of Redis's table of keys would swamp INFO memory's delta: MEMORY USAGE of that key says it.
    const listeners = [];
    for (let i = 0; i < n.listens; i++) {
      const c = new McpSession(ep);
      c.assumeModern();
      const ctl = { abort: () => {} };
      listeners.push(ctl);
      c.post(
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'subscriptions/listen',
          params: { notifications: { toolsListChanged: true }, _meta: c.envelope },
        },
        {
          headers: { ...c.headers, 'mcp-method': 'subscriptions/listen' },
          onController: (x) => {
            ctl.abort = () => x.abort(new Error('done'));
          },
        },
      ).catch(() => {});
    }
    // The leases of this one anonymous caller, under a key named for its address.
    let leases;
    await waitFor(
      async () => {
        [leases] = await r.keys(`${PREFIX}:listens:*`);
        return (leases !== undefined && (await r.zcard(leases)) === n.listens) || undefined;
      },
      20_000,
      () => 'every listen stream to hold its lease',
    );
    const leaseBytes = await r.memory('USAGE', leases, 'SAMPLES', '0');
    const perListen = leaseBytes / n.listens;
    for (const l of listeners) l.abort();

    // Stored events: appended to one stream by the event store the cluster uses, as a call's progress is;
    // MEMORY USAGE of that stream, less what it took with one event, per event after the first.
    const { RedisEventStore } = await import(dist('cluster/index.js'));
    const store = new RedisEventStore({
      redis: redis.url,
      keyPrefix: `${PREFIX}:events`,
      maxEventsPerStream: n.events,
    });
    await store.open('sizing', 'stream');
    await store.append('sizing', 'stream', EVENT);
    const streamKey = store.streamKeyOf(hashOf('sizing'), 'stream');
    const first = await r.memory('USAGE', streamKey, 'SAMPLES', '0');
    for (let i = 1; i < n.events; i += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, n.events - i) }, () => store.append('sizing', 'stream', EVENT)),
      );
    }
    const perEvent = ((await r.memory('USAGE', streamKey, 'SAMPLES', '0')) - first) / (n.events - 1);
    await store.close();

    // Commands per call: a legacy session's tools/call, then a 2026-07-28 one (no session).
    before = await usedMemory(r);
    const legacy = await commandsPer(r, n.calls, (i) =>
      sessions[i % sessions.length].callTool('echo', { text: `x${i}` }),
    );
    const perCall = ((await usedMemory(r)) - before) / n.calls;
    // A finished call's POST stream: its key (the GET streams are the only other event keys, all Redis streams).
    const postKeys = [];
    for (const key of await r.keys(`${PREFIX}:events:{*}:*`)) {
      const type = await r.type(key);
      if (type !== 'stream') postKeys.push({ type, bytes: await r.memory('USAGE', key, 'SAMPLES', '0') });
    }
    const post = postKeys.length
      ? `its closed POST stream, sealed: \`mcpwire:events:{h}:<stream>\` (${postKeys[0].type}) ${postKeys[0].bytes} B of 2 events`
      : 'its closed POST stream: `mcpwire:events:{h}:<stream>` (stream) of 2 events';
    const modernClient = new McpSession(ep);
    modernClient.assumeModern();
    const modern = await commandsPer(r, n.calls, (i) =>
      modernClient.modernCallTool('echo', { text: `x${i}` }),
    );

    const kib = (b) => `${(b / 1024).toFixed(2)} KiB`;
    const memory = [
      [`idle legacy session (${n.sessions})`, kib(perSession), sampleKeys.map(describe).join('; ')],
      [`+ its GET stream open (${n.sessions})`, kib(perGet), heldKeys.map(describe).join('; ')],
      [
        `listen stream, 2026-07-28 (${n.listens})`,
        `${perListen.toFixed(0)} B (MEMORY USAGE / count)`,
        `a member of \`${leases}\` (zset, ${leaseBytes} B in all)`,
      ],
      [
        `stored event of ${EVENT.length} bytes (${n.events})`,
        `${perEvent.toFixed(0)} B (${(perEvent - EVENT.length).toFixed(0)} B beyond its data)`,
        "an entry of the stream's Redis stream (MEMORY USAGE / count)",
      ],
      [
        `what a legacy call leaves, for the event store's ttlSeconds (${n.calls})`,
        kib(perCall),
        `${post}, 2 fields of \`mcpwire:events:{h}\``,
      ],
    ];
    const calls = [
      [`legacy (2025-11-25, a session; ${n.calls} calls)`, legacy],
      [`modern (2026-07-28; ${n.calls} calls)`, modern],
    ];
    console.log('| what | Redis memory (INFO memory, Δ / count) | its keys, MEMORY USAGE |');
    console.log('| --- | --- | --- |');
    for (const row of memory) console.log(`| ${row.join(' | ')} |`);
    console.log('');
    console.log(
      '| tools/call | Redis commands run per call (INFO commandstats) | sent by mcpwire per call (MONITOR) |',
    );
    console.log('| --- | --- | --- |');
    for (const [name, c] of calls)
      console.log(`| ${name} | ${c.run.toFixed(2)}: ${c.breakdown || '–'} | ${c.sent.toFixed(2)} |`);
    return 0;
  } finally {
    for (const o of open) o.abort();
    await ep.close();
    await served.close();
    r.disconnect();
    await redis.stop();
  }
}

/** The built library serving `echo` with a RedisCluster on `redisUrl`, on a free loopback port. */
async function serve(redisUrl) {
  const { Server, StreamableHTTPHandler } = await import(dist('index.js'));
  const { RedisCluster } = await import(dist('cluster/index.js'));
  const server = new Server({ name: 'mcpwire-redis-sizing', version: '0.1.0' });
  server.tool(ECHO_TOOL, echo);
  const cluster = new RedisCluster({ redis: redisUrl, keyPrefix: PREFIX, requestStateKeys: {} });
  await cluster.whenReady();
  const handler = new StreamableHTTPHandler(server, {
    cluster,
    maxSessions: 20_000,
    maxListenStreamsPerPrincipal: 100_000,
    onerror: (err) => console.error(`server error: ${err?.message ?? err}`),
  });
  const http = createServer(handler.node());
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${http.address().port}/mcp`,
    close: async () => {
      http.closeAllConnections();
      http.close();
      await handler.close({ deadlineMs: 0 });
      await Promise.all([server.close(), cluster.close()]);
    },
  };
}

/** used_memory of INFO memory, once the server has nothing left to free lazily. */
async function usedMemory(r) {
  await sleep(200);
  return Number(/used_memory:(\d+)/.exec(await r.info('memory'))[1]);
}

/** The hash tag of the session with id `sid` in Redis. */
const { sessionHash: hashOf } = await import(dist('util/session-hash.js'));

/** The keys of the session with id `sid` (all share its hash tag), with the type and MEMORY USAGE of each. */
async function keysOf(r, sid) {
  const h = hashOf(sid);
  const out = [];
  for (const key of await r.keys(`*{${h}}*`)) {
    const name = key.replace(h, 'h').replace(/\}:.+$/, '}:<stream>');
    out.push({ key: name, type: await r.type(key), bytes: await r.memory('USAGE', key, 'SAMPLES', '0') });
  }
  return out.sort((x, y) => x.key.localeCompare(y.key));
}

const describe = (k) => `\`${k.key}\` (${k.type}) ${k.bytes} B`;

/** How many of `sessions` have their GET stream's holder in their record. */
async function heldCount(r, sessions) {
  const fields = await Promise.all(sessions.map((s) => r.hkeys(`${PREFIX}:session:{${hashOf(s.sid)}}`)));
  return fields.filter((f) => f.some((x) => x.startsWith('h:'))).length;
}

/**
 * Runs `count` calls (`call(i)`, one at a time) and answers the commands Redis ran per call, by name, and those
 * mcpwire sent (what MONITOR shows, less what scripts ran).
 */
async function commandsPer(r, count, call) {
  let sent = 0;
  const monitor = await r.monitor();
  monitor.on('monitor', (_time, args, source) => {
    if (source !== 'lua' && String(args[0]).toLowerCase() !== 'info') sent++;
  });
  const before = await commandStats(r);
  for (let i = 0; i < count; i++) {
    const res = await call(i);
    if (res.status !== 200 || res.response?.error) {
      throw new Error(`call ${i} failed: HTTP ${res.status} ${JSON.stringify(res.response)}`);
    }
  }
  await sleep(300);
  const after = await commandStats(r);
  monitor.disconnect();
  const delta = new Map();
  for (const [name, calls] of after) {
    const d = calls - (before.get(name) ?? 0);
    // The readings themselves are not the calls'.
    if (d > 0 && name !== 'info' && name !== 'monitor') delta.set(name, d);
  }
  const run = [...delta.values()].reduce((x, y) => x + y, 0) / count;
  const breakdown = [...delta]
    .sort((x, y) => y[1] - x[1])
    .map(([name, d]) => `${name} ${(d / count).toFixed(2)}`)
    .join(', ');
  return { run, breakdown, sent: sent / count };
}

/** INFO commandstats: calls so far, by command name. */
async function commandStats(r) {
  const out = new Map();
  for (const m of (await r.info('commandstats')).matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) {
    out.set(m[1], Number(m[2]));
  }
  return out;
}

process.exitCode = await main();
