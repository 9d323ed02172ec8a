// Three `mcpwire serve --redis-cluster` processes behind a round-robin proxy, on a Redis Cluster of three masters
// and their replicas: a master holding sessions and the inbox of a process is killed with -9 while the clients
// call tools. Its replica takes over, and the service recovers by itself, having lost no more than
// src/cluster/README.md says a failover loses (what the master had not yet passed to its replica): here every
// session was replicated before, so every one goes on. Needs `npm run build` first, redis-server and redis-cli.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { sessionHash } from '../../src/cluster/session-store.js';
import { type ProcessCluster, startProcessCluster } from '../../src/test-support/process-cluster.js';
import { type LocalRedisCluster, startRedisCluster } from '../../src/test-support/redis-cluster-server.js';
import { type RoundRobinProxy, startRoundRobinProxy } from '../../src/test-support/round-robin-proxy.js';
import { assertDeliveredOnce, type Connected, connectTapped } from '../../src/test-support/tapped-client.js';
import { until } from '../../src/test-support/time-limit.js';
import { toolText as text } from '../../src/test-support/tool-text.js';

const CLIENTS = 12;
/** How long a client waits for a call; the failover takes a few seconds (node timeout 1 s). */
const CALL_TIMEOUT_MS = 10_000;
/** How long the notifications are watched after they came, to see that no second copy follows. */
const QUIET_MS = 500;
/** What a call may fail with while the shard has no master: a 503 saying Redis is unreachable. */
const UNAVAILABLE = /503|unavailable|unreachable/i;

let redis: LocalRedisCluster;
let cluster: ProcessCluster;
let proxy: RoundRobinProxy;
const clients: Connected[] = [];

before(async () => {
  redis = await startRedisCluster();
  cluster = await startProcessCluster(3, { redis: redis.address });
  proxy = await startRoundRobinProxy(cluster.urls());
});

after(async () => {
  await Promise.all(clients.map((c) => c.session.close().catch(() => {})));
  await proxy?.close();
  await cluster?.stopAll();
  await redis?.stop();
});

/** The sharded channels (the processes' inboxes) subscribed on the node on `port`. */
async function inboxesOn(port: number): Promise<string[]> {
  const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null });
  r.on('error', () => {});
  try {
    await r.connect();
    return ((await r.call('PUBSUB', 'SHARDCHANNELS', 'mcpwire:node:*')) as string[]).sort();
  } finally {
    r.disconnect();
  }
}

test('a master killed mid-run: its replica takes over; every session goes on, each message once, no restart', {
  timeout: 120_000,
}, async (t) => {
  for (let i = 0; i < CLIENTS; i++) clients.push(await connectTapped(`${proxy.url}/mcp`));
  const ids = clients.map((c) => c.tap.sessionId!);
  await until(
    () => clients.every((c) => c.tap.exchanges.some((e) => e.method === 'GET' && e.status === 200)),
    10_000,
    'every GET stream',
  );

  // The victim: a master that holds sessions and a process's inbox (each of the three inboxes is on some master).
  const masters = await Promise.all(ids.map((id) => redis.masterOf(`mcpwire:session:{${sessionHash(id)}}`)));
  const candidates = [...new Set(masters)];
  const inboxes = new Map(await Promise.all(candidates.map(async (m) => [m, await inboxesOn(m)] as const)));
  const victim = candidates
    .filter((m) => inboxes.get(m)!.length > 0)
    .sort((a, b) => masters.filter((m) => m === b).length - masters.filter((m) => m === a).length)[0];
  assert.ok(victim !== undefined, 'a master holds both sessions and an inbox');
  const replica = await redis.replicaOf(victim);
  // Every write so far reached the replica: these sessions are older than what the failover loses.
  await redis.whenReplicated(victim);

  // Each client calls echo over and over, and notes each outcome.
  let stop = false;
  let healthy = false;
  const outcomes = clients.map(() => ({ ok: 0, okAfter: 0, failures: [] as string[] }));
  const loops = clients.map(async (c, i) => {
    for (let n = 0; !stop; n++) {
      const message = `client ${i} call ${n}`;
      try {
        const result = await c.session.callTool('echo', { message }, { timeoutMs: CALL_TIMEOUT_MS });
        assert.equal(text(result), `Echo: ${message}`);
        outcomes[i].ok++;
        if (healthy) outcomes[i].okAfter++;
      } catch (err) {
        outcomes[i].failures.push(String(err));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  });
  try {
    await until(() => outcomes.every((o) => o.ok >= 2), 20_000, 'every client calling');
    const killed = Date.now();
    await redis.kill(victim);
    await redis.whenHealthy(30_000);
    t.diagnostic(`the replica took over ${Date.now() - killed} ms after the kill`);
    assert.equal(
      await redis.masterOf(`mcpwire:session:{${sessionHash(ids[masters.indexOf(victim)])}}`),
      replica,
      'the replica took over the shard',
    );
    healthy = true;
    await until(() => outcomes.every((o) => o.okAfter >= 3), 30_000, 'every client served again');
  } finally {
    stop = true;
    await Promise.all(loops);
  }

  const failed = outcomes.reduce((n, o) => n + o.failures.length, 0);
  const served = outcomes.reduce((n, o) => n + o.ok, 0);
  t.diagnostic(
    `${served} calls answered, ${failed} failed (${masters.filter((m) => m === victim).length} of ${CLIENTS} sessions on the killed master)`,
  );
  // The processes listen to their inboxes again, on the new master.
  let resubscribed: string[] = [];
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    resubscribed = await inboxesOn(replica);
    if (resubscribed.length === inboxes.get(victim)!.length) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.deepEqual(resubscribed, inboxes.get(victim));
  assert.ok(
    cluster.processes.every((p) => p.running),
    'no process died',
  );
  // Every session went on: the same ids, none started anew by the client; what failed said Redis was unreachable.
  assert.deepEqual(
    clients.map((c) => c.tap.sessionId),
    ids,
  );
  for (const [i, c] of clients.entries()) {
    assert.deepEqual(c.tap.restarts, [], `client ${i} restarted its session`);
    for (const failure of outcomes[i].failures) assert.match(failure, UNAVAILABLE, `client ${i}`);
  }

  // What crosses processes works again: a list change made through one process reaches every session once,
  // wherever its GET stream is; a sampling request's answer reaches the process that waits for it.
  const listChanged = (c: Connected) =>
    c.tap.delivered.filter((m) => 'method' in m && m.method === 'notifications/tools/list_changed').length;
  assert.equal(text(await clients[0].session.callTool('toggle_tool', {})), 'Added the tool bonus');
  await until(() => clients.every((c) => listChanged(c) === 1), 10_000, 'every session told of the change');
  for (const c of clients.slice(0, 3)) {
    assert.equal(text(await c.session.callTool('sample', { prompt: 'after' })), 'model says: after');
  }
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  for (const c of clients) {
    assert.equal(listChanged(c), 1);
    assertDeliveredOnce(c.tap.delivered);
  }
});
