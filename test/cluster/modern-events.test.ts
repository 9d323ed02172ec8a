// Several `mcpwire serve --redis` processes: a server event published on any process (a list change, a
// resource update) reaches the 2026-07-28 listen streams of every process, once each; and a list change made on
// any process reaches a legacy session once, wherever its GET stream is. Needs `npm run build` first and
// redis-server on PATH.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  get,
  openSession,
  post,
  type SSEReader as Reader,
  SSEReader,
  sseMessages,
} from '../../src/test-support/mcp-http.js';
import { postModern } from '../../src/test-support/modern-http.js';
import { type ProcessCluster, startProcessCluster } from '../../src/test-support/process-cluster.js';
import { type RedisBackend, startRedisBackend } from '../../src/test-support/redis-backend.js';
import { until, within } from '../../src/test-support/time-limit.js';

const README = 'demo://readme';
/** How long a stream is watched after its notifications came, to see that no second copy follows. */
const QUIET_MS = 500;

let redis: RedisBackend;
let cluster: ProcessCluster;

before(async () => {
  redis = await startRedisBackend();
  cluster = await startProcessCluster(2, { redis: redis.address });
});

after(async () => {
  await cluster?.stopAll();
  await redis?.stop();
});

/** A listen stream opened on one process, and every message it carried since its ack. */
interface Listening {
  readonly heard: { method?: string; params?: Record<string, unknown> }[];
  close(): Promise<void>;
}

async function listenOn(base: string, id: string): Promise<Listening> {
  const res = await postModern(`${base}/mcp`, id, 'subscriptions/listen', {
    notifications: { toolsListChanged: true, resourceSubscriptions: [README] },
  });
  assert.equal(res.status, 200);
  const reader: Reader = new SSEReader(res);
  const ack = await within(reader.nextMessage(), 10_000, `the ack of ${id}`);
  assert.equal(ack?.message.method, 'notifications/subscriptions/acknowledged');
  const heard: Listening['heard'] = [];
  (async () => {
    for (let m = await reader.nextMessage(); m !== undefined; m = await reader.nextMessage()) {
      heard.push(m.message);
    }
  })();
  return { heard, close: () => reader.cancel() };
}

/** Calls a tool of the demo on one process (a stateless modern request) and returns its text. */
async function callOn(base: string, name: string): Promise<string> {
  const res = await postModern(`${base}/mcp`, `call-${name}`, 'tools/call', { name, arguments: {} });
  assert.equal(res.status, 200);
  const body = /^text\/event-stream/.test(res.headers.get('content-type') ?? '')
    ? (await sseMessages(res)).at(-1)
    : await res.json();
  return body.result.content[0].text;
}

const count = (l: Listening, method: string) => l.heard.filter((m) => m.method === method).length;

test('a toggle_tool and a touch_readme on process B reach listen streams on A and on B, once each', {
  timeout: 30_000,
}, async () => {
  const [a, b] = cluster.processes;
  const onA = await listenOn(a.url, 'listen-a');
  const onB = await listenOn(b.url, 'listen-b');
  try {
    assert.equal(await callOn(b.url, 'toggle_tool'), 'Added the tool bonus');
    assert.equal(await callOn(b.url, 'touch_readme'), 'Sent an update of demo://readme to its subscribers');
    for (const [l, where] of [
      [onA, 'A'],
      [onB, 'B'],
    ] as const) {
      await until(
        () =>
          count(l, 'notifications/tools/list_changed') >= 1 &&
          count(l, 'notifications/resources/updated') >= 1,
        10_000,
        `the listen stream on ${where} to hear both events`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    // Once each, in the order B made them, also on a Redis Cluster (where B sends every broadcast through one node).
    for (const [l, where] of [
      [onA, 'A'],
      [onB, 'B'],
    ] as const) {
      assert.deepEqual(
        l.heard.map((m) => m.method),
        ['notifications/tools/list_changed', 'notifications/resources/updated'],
        `the listen stream on ${where}`,
      );
      assert.equal(l.heard[1].params?.uri, README);
    }
    // Back to the demo's first state, for whatever runs next.
    assert.equal(await callOn(b.url, 'toggle_tool'), 'Removed the tool bonus');
    await until(() => count(onA, 'notifications/tools/list_changed') === 2, 10_000, 'the second change on A');
  } finally {
    await onA.close();
    await onB.close();
  }
});

test('a legacy session hears each toggle_tool once, made on the process holding its GET stream or another', {
  timeout: 30_000,
}, async () => {
  const [a, b] = cluster.processes;
  const sessionId = await openSession(`${a.url}/mcp`);
  const stream = await get(`${a.url}/mcp`, sessionId);
  assert.equal(stream.status, 200);
  const reader = new SSEReader(stream);
  const heard: string[] = [];
  (async () => {
    for (let m = await reader.nextMessage(); m !== undefined; m = await reader.nextMessage()) {
      heard.push(m.message.method);
    }
  })();
  const changes = () => heard.filter((m) => m === 'notifications/tools/list_changed').length;
  try {
    // B holds no replica of the session: B's change reaches it through A, which holds its GET stream.
    await callOn(b.url, 'toggle_tool');
    await until(() => changes() === 1, 10_000, 'the change made on B');
    // Now B holds a replica too (a request of the session served there): still once per change.
    const listed = await post(`${b.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { sessionId });
    assert.equal(listed.status, 200);
    await listed.text();
    await callOn(b.url, 'toggle_tool');
    await until(() => changes() === 2, 10_000, 'the second change made on B');
    // And a change made on A itself.
    await callOn(a.url, 'toggle_tool');
    await until(() => changes() === 3, 10_000, 'the change made on A');
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    assert.equal(changes(), 3);
  } finally {
    await reader.cancel();
  }
});
