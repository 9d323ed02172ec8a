// Several `mcpwire serve --redis` processes (the built command line) behind a balancer with no session
// affinity: a client never notices which process answers it, a process killed with -9 costs no event, and
// Redis going away costs a clear 503 until it is back. Needs `npm run build` first and redis-server on PATH.
import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import type { RedisAddress } from '../../src/eventstore/redis-address.js';
import type { JsonRpcMessage, RequestId } from '../../src/jsonrpc/types.js';
import { SessionExpiredError } from '../../src/peer/errors.js';
import type { CallToolResult } from '../../src/protocol/types.js';
import { initializeRequest, post } from '../../src/test-support/mcp-http.js';
import { type ProcessCluster, startProcessCluster } from '../../src/test-support/process-cluster.js';
import { type RedisBackend, redisKind, startRedisBackend } from '../../src/test-support/redis-backend.js';
import { startRedisServer } from '../../src/test-support/redis-server.js';
import {
  BACKEND_HEADER,
  type RoundRobinProxy,
  startRoundRobinProxy,
} from '../../src/test-support/round-robin-proxy.js';
import {
  assertDeliveredOnce,
  type Connected,
  connectTapped,
  type Exchange,
  TAPPED_ROOT,
} from '../../src/test-support/tapped-client.js';
import { until } from '../../src/test-support/time-limit.js';
import { toolText as text } from '../../src/test-support/tool-text.js';

const TEST_TIMEOUT_MS = 90_000;

/** What the running test started, undone once it ends however it ended, last first. */
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

// One Redis for the tests of the file (each has sessions of its own), but the one that restarts it.
let shared: RedisBackend;
before(async () => {
  shared = await startRedisBackend();
});
after(() => shared?.stop());

async function processes(count: number, redis: RedisAddress, args: string[] = []): Promise<ProcessCluster> {
  const cluster = await startProcessCluster(count, { redis, args });
  cleanups.push(() => cluster.stopAll());
  return cluster;
}

async function proxy(backends: string[]): Promise<RoundRobinProxy> {
  const p = await startRoundRobinProxy(backends);
  cleanups.push(() => p.close());
  return p;
}

async function connect(url: string): Promise<Connected> {
  const connected = await connectTapped(url);
  cleanups.push(() => connected.session.close());
  return connected;
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i + 1);
}

/** The POST of `message`'s kind: a request by method and id, or the response to `id`. */
function postOf(exchanges: readonly Exchange[], match: (m: JsonRpcMessage) => boolean): Exchange {
  const found = exchanges.find((e) => e.method === 'POST' && e.message !== undefined && match(e.message));
  assert.ok(found, 'the POST was made');
  return found;
}

const isRequest = (method: string, id?: RequestId) => (m: JsonRpcMessage) =>
  'method' in m && m.method === method && 'id' in m && (id === undefined || m.id === id);
const isResponse = (id: RequestId | null) => (m: JsonRpcMessage) => !('method' in m) && m.id === id;

for (const count of [2, 3]) {
  test(`${count} processes behind a round-robin proxy: the whole demo, every message delivered exactly once`, {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const cluster = await processes(count, shared.address);
    const balancer = await proxy(cluster.urls());
    const { session, tap, sampled, errors } = await connect(`${balancer.url}/mcp`);
    const sessionId = tap.sessionId;
    const logs: string[] = [];
    session.on('log', (p) => logs.push(String(p.data)));

    // Logging: the level set through one process holds on every other from its answer on (the next calls go to the
    // others at once).
    await session.setLoggingLevel('info');
    for (let i = 0; i < count + 1; i++) {
      assert.equal(text(await session.callTool('echo', { message: `hello ${i}` })), `Echo: hello ${i}`);
    }
    await session.setLoggingLevel('error');
    for (let i = 0; i < count + 1; i++) await session.callTool('echo', { message: `quiet ${i}` });
    await session.setLoggingLevel('info');

    const sum = await session.callTool('add', { a: 2, b: 40 });
    assert.deepEqual(sum.structuredContent, { sum: 42 });

    // Progress on the call's own stream, each step once.
    const steps = 6;
    const progress: number[] = [];
    const long = await session.callTool(
      'long_running',
      { duration: 0.6, steps },
      { onprogress: (p) => progress.push(p.progress) },
    );
    assert.equal(text(long), `Long-running operation completed: ${steps} steps in 0.6 s`);
    assert.deepEqual(progress, range(steps));

    // Server-to-client round trips: the answer is POSTed to whichever process comes next in turn.
    const rounds = 3;
    const crossed: boolean[] = [];
    const roundTrip = async (tool: string, method: string, args: Record<string, string>) => {
      const before = tap.exchanges.length;
      const result = await session.callTool(tool, args);
      const made = tap.exchanges.slice(before);
      const asked = tap.delivered.findLast(isRequest(method));
      assert.ok(asked !== undefined && 'id' in asked, `the server sent ${method}`);
      const answer = postOf(made, isResponse(asked.id));
      // The result may overtake the 202 of the answer's POST: the server acts on the body it read.
      await until(() => answer.status !== undefined, 5000, `the answer to ${method} to be accepted`);
      assert.equal(answer.status, 202, `the answer to ${method} was accepted`);
      crossed.push(answer.backend !== postOf(made, isRequest('tools/call')).backend);
      return result;
    };
    for (let i = 0; i < rounds; i++) {
      const sampledText = await roundTrip('sample', 'sampling/createMessage', { prompt: `question ${i}` });
      assert.equal(text(sampledText), `model says: question ${i}`);
      const roots = await roundTrip('list_roots', 'roots/list', {});
      assert.deepEqual(roots.structuredContent, { roots: [TAPPED_ROOT.uri] });
    }
    assert.deepEqual(
      sampled,
      range(rounds).map((i) => `question ${i - 1}`),
    );
    assert.ok(crossed.includes(true), 'some answer landed on another process than the one waiting for it');
    await session.callTool('echo', { message: 'back' });

    assert.deepEqual(logs, [
      ...range(count + 1).map((i) => `echo called with "hello ${i - 1}"`),
      `long_running finished ${steps} steps in 0.6 s`,
      'echo called with "back"',
    ]);
    // Every process served this one session, none with affinity.
    const backends = new Set(tap.exchanges.map((e) => e.backend));
    assert.deepEqual([...backends].sort(), cluster.urls().sort());
    assertDeliveredOnce(tap.delivered);
    const progressNotes = tap.delivered.filter((m) => 'method' in m && m.method === 'notifications/progress');
    assert.equal(progressNotes.length, steps);
    assert.equal(tap.sessionId, sessionId);
    assert.deepEqual(tap.restarts, []);
    assert.deepEqual(errors, []);
  });
}

test('kill -9 the process carrying a call stream and the standalone stream: both resume through another, no event lost or repeated', {
  timeout: TEST_TIMEOUT_MS,
}, async () => {
  const cluster = await processes(3, shared.address);
  const [x, y, z] = cluster.urls();
  // Routing is steered: the session and its standalone stream on y, the call itself run by x.
  const balancer = await proxy([y]);
  const { session, tap } = await connect(`${balancer.url}/mcp`);
  await session.setLoggingLevel('info');
  const standalone = () =>
    tap.exchanges.filter((e) => e.method === 'GET' && e.status === 200 && e.lastEventId === undefined);
  await until(() => standalone().length === 1, 5000, 'the standalone GET stream to open');
  assert.equal(standalone()[0].backend, y);

  balancer.setBackends([x]);
  const steps = 25;
  const progress: number[] = [];
  const call = session.callTool(
    'long_running',
    { duration: 5, steps },
    { onprogress: (p) => progress.push(p.progress) },
  );
  call.catch(() => {}); // awaited below
  await until(() => progress.length >= 3, 5000, 'the call to report progress');
  assert.equal(postOf(tap.exchanges, isRequest('tools/call')).backend, x);

  // The call's stream breaks off; x runs the tool on, and the client resumes the stream through y.
  balancer.setBackends([y]);
  assert.equal(balancer.cut(x), 1);
  const resumes = () => tap.exchanges.filter((e) => e.method === 'GET' && e.lastEventId !== undefined);
  await until(() => resumes().some((e) => e.status === 200), 5000, 'the call stream to resume');
  assert.equal(resumes()[0].backend, y);
  const atResume = progress.length;
  await until(() => progress.length >= atResume + 2, 5000, 'y to relay what x writes');

  // Now y dies with both streams open: they resume through z or x.
  balancer.setBackends([z, x]);
  const killedAt = tap.exchanges.length;
  await cluster.kill(1, 'SIGKILL');
  const result = await call;
  assert.equal(text(result), `Long-running operation completed: ${steps} steps in 5 s`);
  assert.deepEqual(progress, range(steps), 'every progress notification exactly once, in order');
  const afterKill = tap.exchanges.slice(killedAt);
  assert.ok(
    afterKill.some(
      (e) => e.method === 'GET' && e.status === 200 && e.backend !== y && e.lastEventId !== undefined,
    ),
    `the call stream resumed through another process: ${JSON.stringify(afterKill)}`,
  );
  await until(
    () =>
      tap.exchanges.slice(killedAt).some((e) => e.method === 'GET' && e.status === 200 && e.backend !== y),
    5000,
    'the standalone stream to reopen',
  );

  assert.deepEqual(
    tap.delivered.filter((m) => 'method' in m && m.method === 'notifications/message').length,
    1,
    'the log message of the call, once',
  );
  assertDeliveredOnce(tap.delivered);
  assert.equal(text(await session.callTool('echo', { message: 'still here' })), 'Echo: still here');
  assert.deepEqual(tap.restarts, []);
});

test('kill -9 the process writing a call stream that another follows: the following response ends, not waits forever', {
  timeout: TEST_TIMEOUT_MS,
}, async () => {
  const cluster = await processes(2, shared.address);
  const [x, y] = cluster.urls();
  const balancer = await proxy([y]);
  const { session, tap } = await connect(`${balancer.url}/mcp`);
  await until(
    () => tap.exchanges.some((e) => e.method === 'GET' && e.status === 200),
    5000,
    'the standalone GET stream to open on y',
  );
  balancer.setBackends([x]);
  const progress: number[] = [];
  const call = session.callTool(
    'long_running',
    { duration: 30, steps: 60 },
    { onprogress: (p) => progress.push(p.progress) },
  );
  const outcome = call.then(
    () => 'answered',
    (err: Error) => err.message,
  );
  await until(() => progress.length >= 2, 5000, 'the call to report progress');

  // The call's stream breaks off; the client resumes it through y, which follows what x writes.
  balancer.setBackends([y]);
  assert.equal(balancer.cut(x), 1);
  const resumes = () => tap.exchanges.filter((e) => e.method === 'GET' && e.lastEventId !== undefined);
  await until(() => resumes().some((e) => e.status === 200), 5000, 'the call stream to resume');
  const atResume = progress.length;
  await until(() => progress.length > atResume, 5000, 'y to relay what x writes');

  // x dies: y finds its liveness key gone and ends the response that follows x's stream, so the client
  // resumes again (and finds the stream closed) instead of listening to keep-alives until its timeout.
  const resumed = resumes().length;
  await cluster.kill(0, 'SIGKILL');
  await until(
    () => resumes().length > resumed && resumes().at(-1)?.status === 200,
    8000,
    'the client to be let go and resume again',
  );
  assert.notEqual(await outcome, 'answered');
});

test('kill -9 one of three processes: 100 sessions out of 100 continue', {
  timeout: TEST_TIMEOUT_MS,
}, async () => {
  const cluster = await processes(3, shared.address);
  const balancer = await proxy(cluster.urls());
  const connected: Connected[] = [];
  for (let batch = 0; batch < 5; batch++) {
    connected.push(...(await Promise.all(range(20).map(() => connect(`${balancer.url}/mcp`)))));
  }
  const ids = connected.map((c) => c.tap.sessionId);
  assert.equal(new Set(ids).size, 100, 'a session id each');
  const [dead, ...alive] = cluster.urls();
  assert.ok(
    connected.some((c) => c.tap.exchanges[0]?.backend === dead),
    'some sessions were created by the process about to die',
  );

  // The balancer stops sending to the dead process, as a health check would.
  balancer.setBackends(alive);
  await cluster.kill(0, 'SIGKILL');
  const calls = await Promise.allSettled(
    connected.map((c, i) => c.session.callTool('echo', { message: `session ${i}` })),
  );
  const failures = calls.flatMap((r, i) => (r.status === 'rejected' ? [`${i}: ${String(r.reason)}`] : []));
  assert.deepEqual(failures.slice(0, 5), [], `${failures.length} of 100 sessions failed`);
  calls.forEach((r, i) => {
    assert.equal(text((r as PromiseFulfilledResult<CallToolResult>).value), `Echo: session ${i}`);
  });
  // The same sessions, not new ones made behind the caller's back.
  assert.deepEqual(
    connected.map((c) => c.tap.sessionId),
    ids,
  );
  assert.equal(
    connected.reduce((n, c) => n + c.tap.restarts.length, 0),
    0,
  );
});

// On a Redis Cluster, a master killed instead: see redis-cluster-failover.test.ts.
test('Redis restarted mid-run: 503 with a JSON-RPC error while it is down, service back without restarting mcpwire', {
  timeout: TEST_TIMEOUT_MS,
  skip: redisKind() === 'cluster' && 'about one Redis server',
}, async () => {
  const store = await startRedisServer();
  cleanups.push(() => store.stop());
  const cluster = await processes(2, store.url);
  const pids = cluster.processes.map((p) => p.pid);
  const balancer = await proxy(cluster.urls());
  const { session } = await connect(`${balancer.url}/mcp`);
  assert.equal(text(await session.callTool('echo', { message: 'before' })), 'Echo: before');

  await store.stop();
  // A new session, through each process in turn.
  for (let i = 0; i < 2; i++) {
    const response = await post(`${balancer.url}/mcp`, initializeRequest(1), {
      signal: AbortSignal.timeout(8000),
    });
    assert.equal(response.status, 503, `through ${response.headers.get(BACKEND_HEADER)}`);
    const body = (await response.json()) as { jsonrpc: string; error?: { code: number; message: string } };
    assert.equal(body.jsonrpc, '2.0');
    assert.equal(typeof body.error?.code, 'number');
    assert.match(body.error?.message ?? '', /unavailable|redis/i);
  }
  // The session made before: its call fails clearly too, and fast.
  await assert.rejects(session.callTool('echo', { message: 'during' }, { timeoutMs: 8000 }), /503/);
  assert.ok(
    cluster.processes.every((p) => p.running),
    'no process crashed',
  );
  // Every process shares Redis: none is taken out of rotation for its loss, so clients keep the 503 that says why.
  for (const url of cluster.urls()) assert.equal((await fetch(`${url}/ready`)).status, 200, url);

  await store.restart();
  // Back without restarting mcpwire: new sessions through both processes.
  const deadline = Date.now() + 10_000;
  for (let i = 0; i < 2; ) {
    try {
      const { session: fresh } = await connect(`${balancer.url}/mcp`);
      assert.equal(text(await fresh.callTool('echo', { message: `after ${i}` })), `Echo: after ${i}`);
      i++;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  // The old session's record went with Redis's data (nothing persisted): the client starts a new one.
  const again = await session
    .callTool('echo', { message: 'again' }, { retryOnRestart: true })
    .catch((err) => {
      assert.ok(err instanceof SessionExpiredError || /503/.test(String(err)), String(err));
      return session.callTool('echo', { message: 'again' });
    });
  assert.equal(text(again), 'Echo: again');
  assert.deepEqual(
    cluster.processes.map((p) => p.pid),
    pids,
  );
});

test('--workers 2 --redis: a worker killed with -9 is restarted, the service and a session made before keep working', {
  timeout: TEST_TIMEOUT_MS,
}, async () => {
  const cluster = await processes(1, shared.address, ['--workers', '2']);
  const primary = cluster.processes[0];
  const workerPids = () =>
    [...primary.output().matchAll(/worker \d+ of 2 serving \(pid (\d+)\)/g)].map((m) => Number(m[1]));
  await until(() => workerPids().length === 2, 5000, 'two workers');
  const { session, tap } = await connect(`${primary.url}/mcp`);
  const sessionId = tap.sessionId;
  assert.equal(text(await session.callTool('echo', { message: 'one' })), 'Echo: one');

  process.kill(workerPids()[0], 'SIGKILL');
  await until(() => workerPids().length === 3, 5000, 'the killed worker restarted');
  for (let i = 0; i < 6; i++) {
    assert.equal(text(await session.callTool('echo', { message: `call ${i}` })), `Echo: call ${i}`);
  }
  const { session: fresh } = await connect(`${primary.url}/mcp`);
  assert.deepEqual((await fresh.callTool('add', { a: 1, b: 1 })).structuredContent, { sum: 2 });
  assert.equal(tap.sessionId, sessionId);
  assert.deepEqual(tap.restarts, []);
});
