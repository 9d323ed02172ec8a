// Two StreamableHTTPHandlers, each with its own Server of the demo definition and its own RedisCluster, sharing one
// redis-server (or a Redis Cluster: redis-cluster-sharded.test.ts), behind a balancer with no session affinity: what a
// client sees must not depend on which one answers.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { Client } from '../client/client.js';
import type { ClientSession } from '../client/client-session.js';
import { StreamableHTTPClientConnection } from '../client/http/streamable-http-client-connection.js';
import { createRedisClient } from '../eventstore/redis-client.js';
import type { JsonRpcMessage, JsonRpcNotification } from '../jsonrpc/types.js';
import { SessionExpiredError } from '../peer/errors.js';
import { deploy, type Node } from '../test-support/cluster-deployment.js';
import { get, initializeRequest, jsonBody, openSession, post, SSEReader } from '../test-support/mcp-http.js';
import { postModern } from '../test-support/modern-http.js';
import { startRedisBackend } from '../test-support/redis-backend.js';
import { startRedisServer } from '../test-support/redis-server.js';
import { BACKEND_HEADER } from '../test-support/round-robin-proxy.js';
import { until, within } from '../test-support/time-limit.js';
import { sessionHash } from './session-store.js';

// One server, or a Redis Cluster when redis-cluster-sharded.test.ts runs these tests.
const redis = await startRedisBackend();
after(() => redis.stop());

/** What the client sent, and which backend answered each. */
interface Sent {
  readonly method: string;
  readonly message: JsonRpcMessage | undefined;
  readonly backend: string | null;
  readonly status: number;
}

/** A client of the demo with every capability, through `url`, recording its HTTP exchanges and notifications. */
async function connect(url: string) {
  const sent: Sent[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as JsonRpcMessage) : undefined;
    sent.push({
      method: init?.method ?? 'GET',
      message: body,
      backend: response.headers.get(BACKEND_HEADER),
      status: response.status,
    });
    return response;
  };
  const client = new Client(
    { name: 'cluster-test', version: '1.0.0' },
    {
      roots: [{ uri: 'file:///tmp/cluster', name: 'cluster' }],
      sampling: (params) => ({
        role: 'assistant',
        content: { type: 'text', text: `sampled: ${(params.messages[0].content as { text: string }).text}` },
        model: 'test-model',
      }),
      elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) },
    },
  );
  const connection = new StreamableHTTPClientConnection(url, { fetch: recordingFetch });
  const session = await client.connect(connection);
  const notifications: JsonRpcNotification[] = [];
  session.on('notification', (n) => {
    notifications.push(n);
  });
  // The GET stream is open once a GET was answered with 200.
  await until(() => sent.some((s) => s.method === 'GET' && s.status === 200), 30_000, 'the GET stream');
  return { session, connection, sent, notifications };
}

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;
const logs = (notifications: JsonRpcNotification[]) =>
  notifications.filter((n) => n.method === 'notifications/message');

const call = (
  id: number,
  name: string,
  args: Record<string, unknown> = {},
  meta?: Record<string, unknown>,
) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: meta === undefined ? { name, arguments: args } : { name, arguments: args, _meta: meta },
});
const request = (id: number, method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});
const mcp = (node: Node) => `${node.origin}/mcp`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The messages of an SSE stream until it ends, with their event ids. */
async function drain(reader: SSEReader): Promise<Array<{ id?: string; message: any }>> {
  const out: Array<{ id?: string; message: any }> = [];
  for (let m = await reader.nextMessage(); m !== undefined; m = await reader.nextMessage()) out.push(m);
  return out;
}

/** The index in an event id `<stream>_<index>`. */
const indexOf = (id: string | undefined) => Number(id!.slice(id!.lastIndexOf('_') + 1));

describe('RedisCluster: processes behind a balancer with no affinity', () => {
  test('a client runs the whole demo, every message delivered once, whichever process answers', {
    timeout: 60_000,
  }, async () => {
    const d = await deploy(redis.address);
    let session: ClientSession | undefined;
    try {
      const c = await connect(d.url);
      session = c.session;
      assert.equal(
        new Set(c.sent.map((s) => s.backend)).size,
        2,
        'initialize, initialized and GET reached both',
      );

      // Tool calls, each logging once at info (on its POST stream).
      assert.equal(text(await session.callTool('echo', { message: 'one' })), 'Echo: one');
      assert.equal(text(await session.callTool('echo', { message: 'two' })), 'Echo: two');
      assert.deepEqual((await session.callTool('add', { a: 2, b: 3 })).structuredContent, { sum: 5 });

      // Progress: three steps, each reported once.
      const progress: number[] = [];
      await session.callTool(
        'long_running',
        { duration: 0.15, steps: 3 },
        { onprogress: (p) => progress.push(p.progress) },
      );
      assert.deepEqual(progress, [1, 2, 3]);

      // logging/setLevel reaches one process; the logs of the next calls, sent the moment it is answered, on both,
      // follow it: the answer left once the other process had applied it.
      await session.setLoggingLevel('warning');
      await session.callTool('echo', { message: 'quiet 1' });
      await session.callTool('echo', { message: 'quiet 2' });
      await session.setLoggingLevel('info');
      await session.callTool('echo', { message: 'loud 1' });
      await session.callTool('echo', { message: 'loud 2' });
      for (const prefix of ['quiet', 'loud']) {
        const calls = c.sent.filter((s) =>
          (
            s.message as { params?: { arguments?: { message?: string } } }
          )?.params?.arguments?.message?.startsWith(prefix),
        );
        assert.equal(
          new Set(calls.map((s) => s.backend)).size,
          2,
          `the ${prefix} calls ran on both processes`,
        );
      }
      const setLevels = c.sent.filter(
        (s) => (s.message as { method?: string })?.method === 'logging/setLevel',
      );
      assert.notEqual(setLevels[0].backend, setLevels[1].backend, 'each level was set on another process');

      // Sampling, roots and elicitation: the client's answer lands on the other process than the waiting one.
      for (const [tool, expected] of [
        ['sample', 'sampled: hello'],
        ['list_roots', 'file:///tmp/cluster'],
        ['elicit_name', 'Hello, Ada'],
      ] as const) {
        const sentBefore = c.sent.length;
        const result = await session.callTool(tool, tool === 'sample' ? { prompt: 'hello' } : {});
        assert.equal(text(result), expected, tool);
        const exchanges = c.sent.slice(sentBefore);
        const toolCall = exchanges.find((s) => (s.message as { method?: string })?.method === 'tools/call');
        const answer = exchanges.find((s) => s.message !== undefined && !('method' in s.message));
        assert.ok(toolCall && answer, `${tool}: a call and an answer`);
        assert.notEqual(answer.backend, toolCall.backend, `${tool}: the answer reached the other process`);
        assert.equal(answer.status, 202);
      }

      // Subscribed through one process; both processes report an update; the GET stream, held by one, gets each.
      await session.subscribeResource('demo://readme');
      for (const node of d.nodes) node.server.resourceUpdated('demo://readme');
      const updated = (n: JsonRpcNotification) => n.method === 'notifications/resources/updated';
      await until(() => c.notifications.filter(updated).length === 2, 30_000, 'two updates');
      await session.unsubscribeResource('demo://readme');
      for (const node of d.nodes) node.server.resourceUpdated('demo://readme');
      await sleep(200);

      // Exactly once: everything the client heard, in order.
      assert.deepEqual(
        c.notifications.map((n) => (updated(n) ? 'updated' : (n.params as { data: string }).data)),
        [
          'echo called with "one"',
          'echo called with "two"',
          'long_running finished 3 steps in 0.15 s',
          'echo called with "loud 1"',
          'echo called with "loud 2"',
          'updated',
          'updated',
        ],
      );
      assert.deepEqual(
        d.nodes.map((n) => n.errors),
        [[], []],
        'no process reported a failure',
      );
    } finally {
      await session?.close();
      await d.close();
    }
  });

  test('JSON responses: messages of a request go on the GET stream, held by either process, once each', {
    timeout: 60_000,
  }, async () => {
    const d = await deploy(redis.address, { jsonResponse: true }, 3);
    let session: ClientSession | undefined;
    try {
      const c = await connect(d.url);
      session = c.session;
      for (let i = 0; i < 3; i++) {
        assert.equal(text(await session.callTool('echo', { message: `json ${i}` })), `Echo: json ${i}`);
        assert.equal(text(await session.callTool('sample', { prompt: `p${i}` })), `sampled: p${i}`);
        assert.equal(text(await session.callTool('list_roots')), 'file:///tmp/cluster');
      }
      const calls = c.sent.filter((s) => (s.message as { method?: string })?.method === 'tools/call');
      assert.equal(new Set(calls.map((s) => s.backend)).size, 3, 'the calls ran on all three processes');
      await until(() => logs(c.notifications).length === 3, 30_000, 'three logs');
      await sleep(100);
      assert.deepEqual(
        logs(c.notifications).map((n) => (n.params as { data: string }).data),
        ['echo called with "json 0"', 'echo called with "json 1"', 'echo called with "json 2"'],
      );
      assert.deepEqual(
        d.nodes.map((n) => n.errors),
        [[], [], []],
      );
    } finally {
      await session?.close();
      await d.close();
    }
  });

  test('a process that loads a session later starts with its shared state (log level)', async () => {
    const d = await deploy(redis.address);
    try {
      const [a, b] = d.nodes;
      const sessionId = await openSession(mcp(a));
      const set = await post(mcp(a), request(1, 'logging/setLevel', { level: 'error' }), { sessionId });
      assert.equal((await drain(new SSEReader(set))).at(-1)?.message.result !== undefined, true);
      // B has never seen the session: it loads it with its level, and filters the info log of echo.
      const quiet = await drain(
        new SSEReader(await post(mcp(b), call(2, 'echo', { message: 'x' }), { sessionId })),
      );
      assert.deepEqual(
        quiet.map((m) => m.message.method ?? 'response'),
        ['response'],
      );
    } finally {
      await d.close();
    }
  });

  test('a session bound to a principal is unknown to any other, on every process', async () => {
    const d = await deploy(redis.address, {}, 2, true);
    try {
      const [a, b] = d.nodes;
      const alice = { 'x-user': 'alice' };
      const sessionId = await openSession(mcp(a), '2025-11-25', {}, alice);
      for (const node of [b, a]) {
        const bob = await post(mcp(node), call(1, 'add', { a: 1, b: 2 }), {
          sessionId,
          headers: { 'x-user': 'bob' },
        });
        assert.equal(bob.status, 404);
        await bob.text();
        const anonymous = await post(mcp(node), call(2, 'add', { a: 1, b: 2 }), { sessionId });
        assert.equal(anonymous.status, 404);
        await anonymous.text();
        const owner = await post(mcp(node), call(3, 'add', { a: 1, b: 2 }), { sessionId, headers: alice });
        assert.equal(owner.status, 200);
        await owner.text();
      }
    } finally {
      await d.close();
    }
  });

  test('a GET resuming a POST stream that another process still writes: replay, then follow until it ends', {
    timeout: 60_000,
  }, async () => {
    const d = await deploy(redis.address);
    try {
      const [a, b] = d.nodes;
      const sessionId = await openSession(mcp(a));
      const answer = await post(
        mcp(a),
        call(7, 'long_running', { duration: 0.5, steps: 5 }, { progressToken: 't' }),
        {
          sessionId,
        },
      );
      const first = new SSEReader(answer);
      const firstProgress = await first.nextMessage();
      assert.equal(firstProgress?.message.params.progress, 1);
      // The client's connection to A drops; it resumes through B while A still runs the tool.
      await first.cancel();
      const resumed = new SSEReader(await get(mcp(b), sessionId, { lastEventId: firstProgress!.id }));
      const rest = await within(drain(resumed), 30_000, 'the resumed stream to end');
      assert.deepEqual(
        rest.map((m) => m.message.params?.progress ?? m.message.params?.data ?? m.message.id),
        [2, 3, 4, 5, 'long_running finished 5 steps in 0.5 s', 7],
      );
      const indexes = rest.map((m) => indexOf(m.id));
      assert.deepEqual(
        indexes,
        indexes.map((_, i) => indexOf(firstProgress!.id) + 1 + i),
        'event ids follow each other',
      );
      assert.deepEqual(
        d.nodes.map((n) => n.errors),
        [[], []],
      );
    } finally {
      await d.close();
    }
  });

  test('the GET stream resumed through another process: what either process sends arrives once, in order', {
    timeout: 60_000,
  }, async () => {
    const d = await deploy(redis.address);
    try {
      const [a, b] = d.nodes;
      const sessionId = await openSession(mcp(a));
      await (
        await post(mcp(b), request(1, 'resources/subscribe', { uri: 'demo://readme' }), { sessionId })
      ).text();
      const onA = new SSEReader(await get(mcp(a), sessionId));
      const priming = await onA.next();
      assert.equal(priming?.data, '');
      a.server.resourceUpdated('demo://readme');
      b.server.resourceUpdated('demo://readme');
      const live = [await onA.nextMessage(), await onA.nextMessage()];
      assert.deepEqual(
        live.map((m) => m?.message.method),
        ['notifications/resources/updated', 'notifications/resources/updated'],
      );
      // The GET connection drops; both processes send meanwhile; the client resumes through B.
      await onA.cancel();
      await sleep(50);
      a.server.resourceUpdated('demo://readme');
      b.server.resourceUpdated('demo://readme');
      await sleep(50);
      const onB = new SSEReader(await get(mcp(b), sessionId, { lastEventId: live[1]!.id }));
      const replayed = [await onB.nextMessage(), await onB.nextMessage()];
      // And after the resumption, both again.
      a.server.resourceUpdated('demo://readme');
      b.server.resourceUpdated('demo://readme');
      const followed = [await onB.nextMessage(), await onB.nextMessage()];
      const all = [...live, ...replayed, ...followed];
      assert.ok(all.every((m) => m?.message.method === 'notifications/resources/updated'));
      const indexes = all.map((m) => indexOf(m!.id));
      assert.deepEqual(
        indexes,
        [...indexes].sort((x, y) => x - y),
        'in order',
      );
      assert.equal(new Set(indexes).size, 6, 'each once');
      // Nothing more: a seventh event would be a duplicate.
      const extra = await Promise.race([onB.nextMessage(), sleep(300).then(() => 'none')]);
      assert.equal(extra, 'none');
      await onB.cancel();
    } finally {
      await d.close();
    }
  });

  test('resourceUpdated on any process reaches each subscribed session once, wherever its GET stream is', {
    timeout: 60_000,
  }, async () => {
    const d = await deploy(redis.address);
    try {
      const [a, b] = d.nodes;
      const uri = 'demo://readme';
      const updated = (m: { message: any } | undefined) =>
        m?.message.method === 'notifications/resources/updated';
      const nothingMore = async (reader: SSEReader) =>
        assert.equal(await Promise.race([reader.nextMessage(), sleep(300).then(() => 'none')]), 'none');
      const sessionId = await openSession(mcp(a));
      await (await post(mcp(a), request(1, 'resources/subscribe', { uri }), { sessionId })).text();
      // Another session, not subscribed, listening on B: it hears nothing.
      const bystander = await openSession(mcp(a));
      const onBystander = new SSEReader(await get(mcp(b), bystander));
      await onBystander.next();

      // The GET stream held by A, the update reported on B, which has never served the session.
      const onA = new SSEReader(await get(mcp(a), sessionId));
      await onA.next();
      b.server.resourceUpdated(uri);
      const first = await within(onA.nextMessage(), 30_000, 'the update on A');
      assert.ok(updated(first));
      assert.deepEqual(first!.message.params, { uri });
      await nothingMore(onA);
      assert.equal(b.handler.sessionCount, 1, 'B reached it without a replica (it holds the bystander only)');

      // Held by neither: the client dropped its GET stream. The update waits in the store, and a resumption
      // through B gets it once.
      await onA.cancel();
      await sleep(50);
      b.server.resourceUpdated(uri);
      await sleep(100);
      const onB = new SSEReader(await get(mcp(b), sessionId, { lastEventId: first!.id }));
      const second = await within(onB.nextMessage(), 30_000, 'the update replayed through B');
      assert.ok(updated(second));
      assert.equal(indexOf(second!.id), indexOf(first!.id) + 1);

      // Held by B now: reported on B (which tells itself) and on A, one each.
      b.server.resourceUpdated(uri);
      a.server.resourceUpdated(uri);
      const more = [await onB.nextMessage(), await onB.nextMessage()];
      assert.ok(more.every(updated));
      assert.deepEqual(
        more.map((m) => indexOf(m!.id)),
        [indexOf(second!.id) + 1, indexOf(second!.id) + 2],
      );
      await nothingMore(onB);

      // Unsubscribed through A: no process reports to it any more.
      await (await post(mcp(a), request(2, 'resources/unsubscribe', { uri }), { sessionId })).text();
      a.server.resourceUpdated(uri);
      b.server.resourceUpdated(uri);
      await nothingMore(onB);
      await nothingMore(onBystander);
      await onB.cancel();
      await onBystander.cancel();
      assert.deepEqual(
        d.nodes.map((n) => n.errors),
        [[], []],
      );
    } finally {
      await d.close();
    }
  });

  test('the server events of one process reach another in the order it published them', {
    timeout: 60_000,
  }, async () => {
    const d = await deploy(redis.address);
    try {
      const [a, b] = d.nodes;
      const heard: string[] = [];
      const unsubscribe = b.server.events.subscribe((event) => {
        if (event.type === 'resource_updated') heard.push(event.uri);
      });
      // Enough events in a row that, sent through several nodes of a Redis Cluster, some would pass others.
      const sent = Array.from({ length: 200 }, (_, i) => `demo://items/${i}`);
      for (const uri of sent) a.server.resourceUpdated(uri);
      await until(() => heard.length >= sent.length, 30_000, 'B to hear every event');
      unsubscribe();
      assert.deepEqual(heard, sent);
    } finally {
      await d.close();
    }
  });

  test('a call answered at once costs one Redis command; its answer is resumable through any process', async () => {
    const d = await deploy(redis.address);
    const [a, b] = d.nodes;
    const sessionId = await openSession(mcp(a));
    const hash = sessionHash(sessionId);
    // The node that serves the session's keys.
    const watcher = new Redis(await redis.urlOf(`{${hash}}`));
    const monitor = await watcher.monitor();
    try {
      // Let what opening the session sent settle, so that only the call's own commands are counted.
      await sleep(200);
      const commands: string[] = [];
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        // The commands sent about the session (what scripts run inside is not sent).
        if (source !== 'lua' && args.some((arg) => arg.includes(hash))) commands.push(args[0].toLowerCase());
      });
      const answer = await drain(
        new SSEReader(await post(mcp(a), call(3, 'add', { a: 2, b: 3 }), { sessionId })),
      );
      assert.deepEqual(answer.at(-1)?.message.result.structuredContent, { sum: 5 });
      await sleep(100);
      // The stream opened, its priming event and answer recorded and the stream closed, all in one script.
      assert.deepEqual(commands, ['evalsha']);
      // Recorded before it left: a client whose connection dropped after the priming event resumes through B.
      const primingId = `${answer[0].id!.slice(0, answer[0].id!.lastIndexOf('_'))}_0`;
      const resumed = await drain(new SSEReader(await get(mcp(b), sessionId, { lastEventId: primingId })));
      assert.deepEqual(
        resumed.map((m) => [m.id, m.message]),
        answer.map((m) => [m.id, m.message]),
      );
    } finally {
      monitor.disconnect();
      watcher.disconnect();
      await d.close();
    }
  });

  test('a GET following a stream whose writing process died ends, and so does every later resumption', {
    timeout: 60_000,
  }, async () => {
    const d = await deploy(redis.address, {}, 2, false, { livenessMs: 300 });
    try {
      const [a, b] = d.nodes;
      const sessionId = await openSession(mcp(a));
      const onA = new SSEReader(
        await post(mcp(a), call(7, 'long_running', { duration: 10, steps: 20 }, { progressToken: 't' }), {
          sessionId,
        }),
      );
      const first = await onA.nextMessage();
      await onA.cancel();
      const onB = new SSEReader(await get(mcp(b), sessionId, { lastEventId: first!.id }));
      const followed = await within(onB.nextMessage(), 30_000, 'B to follow the stream A writes');
      assert.equal(followed?.message.params.progress, 2);
      // A is cut off from Redis and the other processes, as if killed: its liveness key is gone.
      await a.cluster.close();
      const rest = await within(drain(onB), 30_000, 'the response following A’s stream to end');
      assert.ok(rest.every((m) => m.message.method === 'notifications/progress'));
      // The stream is closed for good: a resumption through any process replays what it holds and ends at once.
      const last = rest.at(-1) ?? followed;
      const again = await within(
        drain(new SSEReader(await get(mcp(b), sessionId, { lastEventId: last!.id }))),
        2000,
        'a later resumption to end',
      );
      assert.deepEqual(again, []);
      assert.deepEqual(b.errors, []);
    } finally {
      await d.close();
    }
  });

  test('the client cancels a request that runs on another process: it stops there', async () => {
    const d = await deploy(redis.address);
    try {
      const started: string[] = [];
      const aborted: string[] = [];
      d.nodes.forEach((node, i) => {
        node.server.tool({ name: 'hang', inputSchema: { type: 'object' } }, (_args, ctx) => {
          started.push(`node ${i}`);
          return new Promise((_, reject) => {
            ctx.signal.addEventListener('abort', () => {
              aborted.push(`node ${i}`);
              reject(ctx.signal.reason);
            });
          });
        });
      });
      const [a, b] = d.nodes;
      const sessionId = await openSession(mcp(a));
      const hanging = post(mcp(a), call(5, 'hang'), { sessionId });
      await until(() => started.length > 0, 30_000, 'the call to run');
      assert.deepEqual(started, ['node 0']);
      const cancel = await post(
        mcp(b),
        {
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: 5, reason: 'changed my mind' },
        },
        { sessionId },
      );
      assert.equal(cancel.status, 202);
      await until(() => aborted.length > 0, 30_000, 'the handler to be aborted');
      assert.deepEqual(aborted, ['node 0']);
      // A cancelled request gets no answer: its stream just ends.
      assert.deepEqual(await drain(new SSEReader(await hanging)), []);
    } finally {
      await d.close();
    }
  });

  test('an invalid answer POSTed to another process fails the request where it waits, at once, saying why', {
    timeout: 60_000,
  }, async () => {
    const d = await deploy(redis.address);
    try {
      const [a, b] = d.nodes;
      const sessionId = await openSession(mcp(a), '2025-11-25', { sampling: {} });
      // The first answer reaches a process that holds no replica of the session yet; the second, one that does.
      for (const id of [7, 8]) {
        const calling = new SSEReader(
          await post(mcp(a), call(id, 'sample', { prompt: 'hi' }), { sessionId }),
        );
        const asked = (await calling.nextMessage())!.message;
        assert.equal(asked.method, 'sampling/createMessage');
        const refused = await post(mcp(b), { jsonrpc: '2.0', id: asked.id, result: 'yes' }, { sessionId });
        assert.equal(refused.status, 400);
        assert.equal((await jsonBody(refused)).error.code, -32600);
        const failed = (await within(calling.nextMessage(), 20_000, 'the call to fail'))!.message;
        assert.equal(failed.id, id);
        assert.equal(failed.error.code, -32603);
        assert.equal(
          failed.error.message,
          'The answer to "sampling/createMessage" is not a valid JSON-RPC response: "result" must be an object',
        );
      }
      assert.deepEqual(
        [...a.errors, ...b.errors].filter((e) => /Dropped/.test(e.message)),
        [],
      );
    } finally {
      await d.close();
    }
  });

  test('an invalid answer reaching a process too full to load the session: 400, reported once as invalid', async () => {
    const d = await deploy(redis.address, [{}, { maxSessions: 1 }]);
    try {
      const [a, b] = d.nodes;
      // The second process's one place goes to a session whose GET stream is open: it cannot drop it for another.
      const held = await openSession(mcp(b));
      const stream = await get(mcp(b), held);
      assert.equal(stream.status, 200);
      const sessionId = await openSession(mcp(a), '2025-11-25', { sampling: {} });
      const calling = new SSEReader(await post(mcp(a), call(9, 'sample', { prompt: 'hi' }), { sessionId }));
      const asked = (await calling.nextMessage())!.message;
      const refused = await post(mcp(b), { jsonrpc: '2.0', id: asked.id, result: 'yes' }, { sessionId });
      assert.equal(refused.status, 400);
      // Reported once, as the invalid message it is; that the session could not be loaded there is not news.
      assert.deepEqual(
        b.errors.map((e) => e.message),
        ['Invalid request: "result" must be an object'],
      );
      // It could not: a request of the session gets the full process's 503.
      assert.equal((await post(mcp(b), request(10, 'ping'), { sessionId })).status, 503);
      await stream.body?.cancel();
    } finally {
      await d.close();
    }
  });

  test('DELETE through one process ends the session on every process, and the streams they hold', async () => {
    const d = await deploy(redis.address);
    try {
      const [a, b] = d.nodes;
      const sessionId = await openSession(mcp(a));
      const onB = new SSEReader(await get(mcp(b), sessionId));
      await onB.next();
      const deleted = await fetch(mcp(a), { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
      assert.equal(deleted.status, 204);
      assert.equal(await within(onB.next(), 30_000, 'the GET stream on B to end'), undefined);
      for (const node of d.nodes) {
        const res = await post(mcp(node), call(9, 'echo', { message: 'x' }), { sessionId });
        assert.equal(res.status, 404, 'gone on every process');
        await res.text();
      }
      await until(() => d.nodes.every((n) => n.handler.sessionCount === 0), 30_000, 'no replica left');
    } finally {
      await d.close();
    }
  });

  test('a session idle everywhere expires everywhere; one whose GET stream is open does not', {
    timeout: 60_000,
  }, async () => {
    // The open stream's holder touches the record every tenth of the timeout: a timeout long enough that a busy
    // machine's stall is no idleness (with 500 ms, a stall of 450 ms would let the busy session lapse).
    const d = await deploy(redis.address, { sessionIdleTimeoutMs: 2000 });
    try {
      const [a, b] = d.nodes;
      const idle = await openSession(mcp(a));
      await (await post(mcp(b), call(1, 'add', { a: 1, b: 1 }), { sessionId: idle })).text();
      const busy = await openSession(mcp(a));
      const stream = new SSEReader(await get(mcp(b), busy));
      await stream.next();
      await sleep(5200);
      for (const node of d.nodes) {
        const gone = await post(mcp(node), call(2, 'add', { a: 1, b: 1 }), { sessionId: idle });
        assert.equal(gone.status, 404);
        await gone.text();
        const alive = await post(mcp(node), call(3, 'add', { a: 1, b: 1 }), { sessionId: busy });
        assert.equal(alive.status, 200);
        await alive.text();
      }
      await stream.cancel();
    } finally {
      await d.close();
    }
  });
});

// What one Redis server going down or back in time does; on a Redis Cluster, see redis-cluster-sharded.test.ts.
const oneServer = { skip: redis.kind === 'cluster' ? 'about one Redis server' : false };

describe('RedisCluster: Redis down', oneServer, () => {
  test('requests get 503 with a JSON-RPC error saying Redis is unreachable; service comes back by itself', {
    timeout: 60_000,
  }, async () => {
    const own = await startRedisServer();
    const d = await deploy(own.url);
    let session: ClientSession | undefined;
    try {
      const c = await connect(d.url);
      session = c.session;
      assert.equal(text(await session.callTool('echo', { message: 'before' })), 'Echo: before');
      await own.stop();
      await until(
        () => d.nodes.every((n) => n.cluster.unavailable() !== undefined),
        30_000,
        'Redis seen down',
      );
      for (const node of d.nodes) {
        for (const res of [
          await post(mcp(node), call(1, 'echo', { message: 'x' }), { sessionId: c.connection.sessionId }),
          await post(mcp(node), initializeRequest()),
        ]) {
          assert.equal(res.status, 503);
          const body = (await res.json()) as { jsonrpc: string; error: { message: string } };
          assert.equal(body.jsonrpc, '2.0');
          assert.match(
            body.error.message,
            /^Service Unavailable: Redis, where this server keeps the sessions/,
          );
        }
      }
      await assert.rejects(session.callTool('echo', { message: 'during' }), /503|Redis/);
      // A 2026-07-28 request keeps nothing in Redis: it is served all the same.
      const modern = await postModern(mcp(d.nodes[0]), 'm1', 'tools/call', {
        name: 'echo',
        arguments: { message: 'stateless' },
      });
      assert.equal(modern.status, 200);
      assert.equal(
        ((await modern.json()) as { result: { resultType: string } }).result.resultType,
        'complete',
      );

      // Redis comes back, empty: the processes reconnect by themselves; sessions it lost end (404), new ones work.
      await own.restart();
      await within(
        Promise.all(d.nodes.map((n) => n.cluster.whenReady())),
        10_000,
        'the clusters to reconnect',
      );
      await until(
        () => d.nodes.every((n) => n.handler.sessionCount === 0),
        30_000,
        'the lost session dropped',
      );
      // The client notices its session is gone (404) and starts a new one: the call that found out fails as
      // sent on a session that ended; the calls after it work on both processes.
      await assert.rejects(session.callTool('echo', { message: 'after' }), SessionExpiredError);
      for (let i = 0; i < 4; i++) {
        assert.equal(text(await session.callTool('echo', { message: `after ${i}` })), `Echo: after ${i}`);
      }
      const fresh = await connect(d.url);
      assert.equal(text(await fresh.session.callTool('sample', { prompt: 'again' })), 'sampled: again');
      await fresh.session.close();
    } finally {
      await session?.close().catch(() => {});
      await d.close();
      await own.stop();
    }
  });
});

describe('RedisCluster: Redis loses data', oneServer, () => {
  test('a stream live across a Redis that lost its latest events: what follows still reaches the client, once', {
    timeout: 60_000,
  }, async () => {
    const d = await deploy(redis.address);
    const direct = createRedisClient(await redis.urlOf(''));
    try {
      const [a] = d.nodes;
      const sessionId = await openSession(mcp(a));
      const reader = new SSEReader(
        await post(mcp(a), call(7, 'long_running', { duration: 1.2, steps: 6 }, { progressToken: 't' }), {
          sessionId,
        }),
      );
      const first = [await reader.nextMessage(), await reader.nextMessage()];
      assert.deepEqual(
        first.map((m) => indexOf(m?.id)),
        [1, 2],
      );
      // Redis restarts from a snapshot taken after progress 1: progress 2 is lost, the stream's count is 2.
      const streamId = first[0]!.id!.slice(0, first[0]!.id!.lastIndexOf('_'));
      const events = `${a.cluster.eventStore.keyPrefix}:{${sessionHash(sessionId)}}`;
      const kept = await direct.xrange(`${events}:${streamId}`, '-', '2-0');
      const restored = direct.multi().del(`${events}:${streamId}`);
      for (const [id, fields] of kept) restored.xadd(`${events}:${streamId}`, id, ...fields);
      await restored.hset(events, `n:${streamId}`, String(kept.length)).exec();
      // The processes' connections drop with the restart: they reconnect and check their streams.
      await direct.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
      await direct.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
      const rest = await within(drain(reader), 30_000, 'the stream to end');
      assert.deepEqual(
        rest.map((m) => m.message.params?.progress ?? m.message.params?.data ?? m.message.id),
        [3, 4, 5, 6, 'long_running finished 6 steps in 1.2 s', 7],
        'every message after the loss, once, and the response',
      );
      // The event numbered again goes out without an id (so does one whose append the restart cut off); those
      // after it carry the store's numbers.
      const ids = rest.filter((m) => m.id !== undefined).map((m) => indexOf(m.id));
      assert.equal(rest[0].id, undefined);
      assert.deepEqual(
        ids,
        [...ids].sort((x, y) => x - y),
      );
      assert.ok(ids.every((i) => i > 2));
      assert.ok(a.errors.some((e) => e.name === 'RenumberedEventError'));
      assert.ok(
        a.errors.every((e) => e.name === 'RenumberedEventError' || e.name === 'StoreUnavailableError'),
      );
    } finally {
      direct.disconnect();
      await d.close();
    }
  });
});
