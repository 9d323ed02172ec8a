// The per-principal bound on listen streams (32 by default; anonymous clients counted by their address) counted over
// every `mcpwire serve --redis` process: 16 streams on each of two processes reach it, so a 33rd is refused on
// either; closing one frees one; a process killed with -9 stops counting once its leases lapse. Needs
// `npm run build` first and redis-server on PATH.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DEFAULT_MAX_LISTEN_STREAMS_PER_PRINCIPAL as MAX } from '../../src/server/http/modern/listen-streams.js';
import { SSEReader } from '../../src/test-support/mcp-http.js';
import { type ProcessCluster, startProcessCluster } from '../../src/test-support/process-cluster.js';
import { type ListenRefusal, openRawListen, refusedListen } from '../../src/test-support/raw-listen.js';
import { type RedisBackend, startRedisBackend } from '../../src/test-support/redis-backend.js';

let redis: RedisBackend;
let cluster: ProcessCluster;
const open: SSEReader[] = [];

before(async () => {
  redis = await startRedisBackend();
  cluster = await startProcessCluster(2, { redis: redis.address });
});

after(async () => {
  await Promise.all(open.map((r) => r.cancel()));
  await cluster?.stopAll();
  await redis?.stop();
});

/** Opens a listen on one process, kept to be closed after the test. */
async function listenOn(base: string): Promise<SSEReader | ListenRefusal> {
  const outcome = await openRawListen(base);
  if (outcome instanceof SSEReader) open.push(outcome);
  return outcome;
}

test('the bound holds across processes, frees with a close, and with the death of a process', {
  timeout: 60_000,
}, async () => {
  const [a, b] = cluster.processes;
  const onB: SSEReader[] = [];
  for (let i = 0; i < MAX / 2; i++) {
    assert.ok((await listenOn(a.url)) instanceof SSEReader, `listen ${i} on A`);
    const r = await listenOn(b.url);
    assert.ok(r instanceof SSEReader, `listen ${i} on B`);
    onB.push(r);
  }
  for (const p of [a, b]) {
    const no = refusedListen(await listenOn(p.url));
    assert.equal(no.status, 429);
    assert.match(no.message, /maximum of 32 listen streams across the servers/);
  }

  // A stream closed on B frees its place, which A may take.
  await onB.pop()!.cancel();
  let took: Awaited<ReturnType<typeof listenOn>> | undefined;
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    took = await listenOn(a.url);
    if (took instanceof SSEReader) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.ok(took instanceof SSEReader, 'the freed place was taken');
  assert.equal(refusedListen(await listenOn(b.url)).status, 429);

  // A dies with its 17 streams: each stops counting once its lease lapses (within 3 × 2 s), and B serves 17
  // more, one by one as they lapse; then the bound holds again.
  await cluster.kill(0, 'SIGKILL');
  let served = 0;
  for (const deadline = Date.now() + 20_000; served < MAX / 2 + 1 && Date.now() < deadline; ) {
    if ((await listenOn(b.url)) instanceof SSEReader) served++;
    else await new Promise((resolve) => setTimeout(resolve, 250));
  }
  assert.equal(served, MAX / 2 + 1, 'the places of the dead process were freed');
  assert.equal(refusedListen(await listenOn(b.url)).status, 429);
});
