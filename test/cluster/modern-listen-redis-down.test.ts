// Listen streams of two `mcpwire serve --redis` processes while Redis is down and after it comes back empty: a
// new listen is refused with 503 and a JSON-RPC error naming Redis (never served uncounted, never a crash); the
// streams that stayed open on one process are counted again once it renews their leases, so the per-principal
// bound still holds on the other after Redis lost every lease. Needs `npm run build` first and redis-server on
// PATH.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DEFAULT_MAX_LISTEN_STREAMS_PER_PRINCIPAL as MAX } from '../../src/server/http/modern/listen-streams.js';
import { SSEReader } from '../../src/test-support/mcp-http.js';
import { type ProcessCluster, startProcessCluster } from '../../src/test-support/process-cluster.js';
import { type ListenRefusal, openRawListen, refusedListen } from '../../src/test-support/raw-listen.js';
import { type RedisServer, startRedisServer } from '../../src/test-support/redis-server.js';

let redis: RedisServer;
let cluster: ProcessCluster;
const open: SSEReader[] = [];

before(async () => {
  redis = await startRedisServer();
  cluster = await startProcessCluster(2, { redis: redis.url });
});

after(async () => {
  await Promise.all(open.map((r) => r.cancel()));
  await cluster?.stopAll();
  await redis?.stop();
});

async function listenOn(base: string): Promise<SSEReader | ListenRefusal> {
  const outcome = await openRawListen(base);
  if (outcome instanceof SSEReader) open.push(outcome);
  return outcome;
}

/** Listens until one outcome is not a 503 (Redis reachable again), within 20 s. */
async function onceRedisAnswers(base: string): Promise<SSEReader | ListenRefusal> {
  for (const deadline = Date.now() + 20_000; ; ) {
    const outcome = await listenOn(base);
    if (outcome instanceof SSEReader || outcome.status !== 503 || Date.now() > deadline) return outcome;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test('down: a listen is a 503 naming Redis; back empty: the open streams count again', {
  timeout: 90_000,
}, async () => {
  const [a, b] = cluster.processes;
  for (let i = 0; i < MAX - 1; i++)
    assert.ok((await listenOn(a.url)) instanceof SSEReader, `listen ${i} on A`);

  await redis.stop();
  for (const p of [a, b]) {
    const down = refusedListen(await listenOn(p.url));
    assert.equal(down.status, 503);
    assert.match(down.message, /Redis/);
  }
  assert.ok(a.running && b.running, 'the processes live on');

  // Redis comes back with nothing: A's 31 leases are gone until A renews them (every 2 s); B knows of none.
  await redis.restart();
  assert.ok((await onceRedisAnswers(b.url)) instanceof SSEReader, 'the 32nd place is served');
  let refusal: ListenRefusal | undefined;
  for (const deadline = Date.now() + 20_000; refusal === undefined && Date.now() < deadline; ) {
    const outcome = await listenOn(b.url);
    if (outcome instanceof SSEReader) {
      // Served before the renewal re-counted the others: close it and try once they count.
      await outcome.cancel();
      open.splice(open.indexOf(outcome), 1);
      await new Promise((resolve) => setTimeout(resolve, 500));
    } else refusal = outcome;
  }
  assert.ok(refusal !== undefined, 'the streams that stayed open were counted again');
  assert.equal(refusal.status, 429);
  assert.match(refusal.message, /maximum of 32 listen streams across the servers/);
});
