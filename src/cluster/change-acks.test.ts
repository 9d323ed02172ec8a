// Read-your-writes across processes: a change of a session's state (logging/setLevel, resources/subscribe and
// unsubscribe) answered by process A is seen by a request the client sends next to process B, even when B hears of
// it late; a B that does not acknowledge holds the answer for livenessMs at most, and one that is gone not at all.
// B's Redis is a proxy that can hold what Redis sends to B's pub/sub connection (one redis-server: see
// redis-cluster.test.ts for the same flows on a Redis Cluster, unhindered).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Redis } from 'ioredis';
import { type Deployment, deploy, type Node } from '../test-support/cluster-deployment.js';
import { ManualClock } from '../test-support/manual-clock.js';
import { openSession, post, sseMessages, toolCall } from '../test-support/mcp-http.js';
import { startRedisServer } from '../test-support/redis-server.js';
import { type SubscriberHoldProxy, startSubscriberHoldProxy } from '../test-support/subscriber-hold-proxy.js';
import { until } from '../test-support/time-limit.js';
import { sessionHash } from './session-store.js';

const redis = await startRedisServer();
const watcher = new Redis(redis.url);
after(async () => {
  watcher.disconnect();
  await redis.stop();
});

const mcp = (node: Node) => `${node.origin}/mcp`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A change made through A, and whether its answer came. */
interface Change {
  readonly answer: Promise<any[]>;
  answered: boolean;
}

/**
 * Runs `body` with processes A and B of the demo, and a session of it that B holds a replica of (it served a call).
 * A's clock moves only when the test says (so A's bound on waiting, livenessMs, passes only then); B's Redis is a
 * proxy that can hold what Redis sends B's pub/sub connection, B's clock the system's.
 */
async function withTwoProcesses(clock: ManualClock, body: (p: TwoProcesses) => Promise<void>): Promise<void> {
  const proxy = await startSubscriberHoldProxy(redis.url);
  let d: Deployment | undefined;
  try {
    d = await deploy([redis.url, proxy.url], [{ clock }, {}]);
    await body(await twoProcesses(d, proxy));
  } finally {
    await d?.close();
    await proxy.close();
  }
}

type TwoProcesses = Awaited<ReturnType<typeof twoProcesses>>;

async function twoProcesses(d: Deployment, proxy: SubscriberHoldProxy) {
  const [a, b] = d.nodes;
  for (const node of d.nodes) {
    node.server.tool({ name: 'subscriptions', inputSchema: { type: 'object' } }, (_args, ctx) => ({
      content: [{ type: 'text', text: JSON.stringify([...(ctx.session?.subscriptions ?? [])]) }],
    }));
  }
  const sessionId = await openSession(mcp(a));
  let ids = 0;
  /** What `tool` on B sends: its log messages' methods, and its text. */
  const onB = async (tool: string) => {
    const messages = await sseMessages(
      await post(mcp(b), toolCall(++ids, tool, { message: 'x' }), { sessionId }),
    );
    return {
      methods: messages.map((m) => m.method ?? 'response'),
      text: messages.at(-1).result.content[0].text as string,
    };
  };
  assert.deepEqual(
    (await onB('echo')).methods,
    ['notifications/message', 'response'],
    'B logs at every level',
  );
  /** `method` through A. */
  const change = (method: string, params: Record<string, unknown>): Change => {
    const request = { jsonrpc: '2.0', id: ++ids, method, params };
    const made: Change = { answer: post(mcp(a), request, { sessionId }).then(sseMessages), answered: false };
    const settled = () => {
      made.answered = true;
    };
    made.answer.then(settled, settled);
    return made;
  };
  /** Whether the record lists `node` as holding a replica of the session (A waits for those). */
  const listed = async (node: Node) =>
    (await watcher.hexists(a.cluster.records.key(sessionHash(sessionId)), `r:${node.cluster.nodeId}`)) === 1;
  /** The bytes by which A asks B to acknowledge a change, as B's pub/sub connection gets them. */
  const asked = () => proxy.held().includes(`"a":"${a.cluster.nodeId}"`);
  return { a, b, proxy, change, onB, listed, asked };
}

/** Until `check` resolves true, polled; rejects after 30 s with `label`. */
async function untilAsync(check: () => Promise<boolean>, label: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after 30 s waiting for ${label}`);
    await sleep(10);
  }
}

test('a request sent once a change is answered sees it on another process, though that one hears of it late', {
  timeout: 60_000,
}, async () => {
  await withTwoProcesses(new ManualClock(), async (p) => {
    /** A change through A while B hears nothing from Redis; its answer. */
    const whileBIsDeaf = async (method: string, params: Record<string, unknown>) => {
      p.proxy.hold();
      const made = p.change(method, params);
      // A sends B the change and waits for B's acknowledgement: B hears from Redis again then. (Without that wait
      // the answer comes first, and B, deaf still, serves the request that follows.)
      await until(() => made.answered || p.asked(), 30_000, `the answer to ${method}, or A asking B`);
      if (!made.answered) p.proxy.release();
      assert.ok((await made.answer).at(-1).result, `${method} answered`);
    };
    await whileBIsDeaf('logging/setLevel', { level: 'error' });
    assert.deepEqual((await p.onB('echo')).methods, ['response'], 'B filters the info log at once');
    await whileBIsDeaf('resources/subscribe', { uri: 'demo://readme' });
    assert.equal((await p.onB('subscriptions')).text, '["demo://readme"]');
    await whileBIsDeaf('resources/unsubscribe', { uri: 'demo://readme' });
    assert.equal((await p.onB('subscriptions')).text, '[]');
    assert.deepEqual([p.a.errors, p.b.errors], [[], []]);
  });
});

test('a process that does not acknowledge holds the answer for livenessMs at most; one gone is waited for once', {
  timeout: 60_000,
}, async () => {
  const clock = new ManualClock();
  await withTwoProcesses(clock, async (p) => {
    const setLevel = (level: string) => p.change('logging/setLevel', { level });

    // B alive (its liveness key beats) but deaf: answered once livenessMs passed on A's clock, and reported.
    p.proxy.hold();
    const slow = setLevel('error');
    await until(p.asked, 30_000, 'A to ask B');
    assert.equal(slow.answered, false, 'A waits for B');
    clock.advance(p.a.cluster.livenessMs);
    assert.ok((await slow.answer).at(-1).result);
    await until(() => p.a.errors.length > 0, 30_000, 'A to report B');
    assert.match(p.a.errors[0].message, /did not acknowledge a change .* within 2000 ms/);
    assert.equal(await p.listed(p.b), true, 'B, alive, is still waited for');
    p.proxy.release();

    // B gone while its connection to Redis stays open (its host vanished): Redis still counts it as listening. The
    // same wait, then B, whose liveness key is gone, leaves the record.
    p.proxy.hold();
    await p.b.cluster.close();
    const unheard = setLevel('info');
    await until(p.asked, 30_000, 'A to ask B');
    assert.equal(unheard.answered, false, 'A waits for B');
    clock.advance(p.a.cluster.livenessMs);
    assert.ok((await unheard.answer).at(-1).result);
    await untilAsync(async () => !(await p.listed(p.b)), 'B to leave the record');
    // From then on nobody waits for it: answered with A's clock still.
    assert.ok((await setLevel('debug').answer).at(-1).result);
    assert.equal(p.a.errors.length, 1, 'a process gone is not reported as slow');
  });
});

test('a process that died (its pub/sub connection closed) is not waited for, and leaves the record', {
  timeout: 60_000,
}, async () => {
  await withTwoProcesses(new ManualClock(), async (p) => {
    await p.b.cluster.close();
    const inbox = `${p.b.cluster.keyPrefix}:node:${p.b.cluster.nodeId}`;
    await untilAsync(
      async () => ((await watcher.pubsub('NUMSUB', inbox)) as [string, number])[1] === 0,
      'Redis to see B gone',
    );
    assert.equal(await p.listed(p.b), true);
    // A's clock never moves: an answer means A did not wait for B at all.
    assert.ok((await p.change('logging/setLevel', { level: 'error' }).answer).at(-1).result);
    await untilAsync(async () => !(await p.listed(p.b)), 'B to leave the record');
    assert.deepEqual(p.a.errors, []);
  });
});
