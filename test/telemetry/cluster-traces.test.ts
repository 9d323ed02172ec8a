// Traces across two `mcpwire serve --redis` processes behind a balancer with no session affinity: each loads the
// OpenTelemetry SDK with `node --import` and writes its spans to one file. Every call of mcpwire's Client is one
// trace whichever process serves it, in both eras; a modern request's rounds served by two processes are two
// server spans under the one client span; a server-to-client request relayed through Redis to the process that
// holds the client's stream keeps the trace; and the Redis round trips of the cluster are spans of their own.
// Needs `npm run build` first and redis-server on PATH.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as api from '@opentelemetry/api';
import { connectUrl } from '../../src/client/index.js';
import {
  demoClient,
  parentOf,
  type Recording,
  recordTelemetry,
  type SpanFile,
  type SpanLine,
  spanFile,
  theSpan,
} from '../../src/test-support/otel.js';
import { type ProcessCluster, startProcessCluster } from '../../src/test-support/process-cluster.js';
import { type RedisServer, startRedisServer } from '../../src/test-support/redis-server.js';
import { type RoundRobinProxy, startRoundRobinProxy } from '../../src/test-support/round-robin-proxy.js';
import { until } from '../../src/test-support/time-limit.js';

const { CLIENT, SERVER } = api.SpanKind;

/** The spans of the serve processes that `ok` picks, once there are `count`. */
async function written(file: SpanFile, ok: (s: SpanLine) => boolean, count: number, what: string) {
  await until(() => file.read().filter(ok).length >= count, 10_000, what);
  return file.read().filter(ok);
}

for (const mode of ['SSE answers', 'JSON answers'] as const) {
  describe(`traces across two serve --redis processes (${mode})`, { timeout: 90_000 }, () => {
    let recording: Recording;
    let file: SpanFile;
    let redis: RedisServer;
    let cluster: ProcessCluster;
    let proxy: RoundRobinProxy;
    let url: string;

    before(async () => {
      recording = recordTelemetry();
      file = spanFile();
      redis = await startRedisServer();
      cluster = await startProcessCluster(2, {
        redis: redis.url,
        args: mode === 'JSON answers' ? ['--json'] : [],
        env: file.env,
      });
      proxy = await startRoundRobinProxy(cluster.urls());
      url = `${proxy.url}/mcp`;
    });

    after(async () => {
      await proxy?.close();
      await cluster?.stopAll();
      await redis?.stop();
      file?.remove();
      await recording?.stop();
    });

    for (const era of ['legacy', 'modern'] as const) {
      test(`${era}: each call is one trace, whichever process serves it`, async () => {
        recording.reset();
        const session = await connectUrl(demoClient(era), url);
        try {
          for (let i = 0; i < 4; i++) await session.callTool('add', { a: i, b: 1 });
        } finally {
          await session.close();
        }
        const calls = recording.spans().filter((s) => s.name === 'tools/call add' && s.kind === CLIENT);
        assert.equal(calls.length, 4);
        const ids = new Set(calls.map((c) => c.spanContext().spanId));
        const served = await written(
          file,
          (s) => s.kind === SERVER && s.name === 'tools/call add' && ids.has(s.parentSpanId ?? ''),
          4,
          'a server span under each client span',
        );
        for (const s of served) {
          const call = calls.find((c) => c.spanContext().spanId === s.parentSpanId)!;
          assert.equal(s.traceId, call.spanContext().traceId);
          assert.equal(s.attributes['mcpwire.era'], era);
        }
        assert.equal(new Set(served.map((s) => s.pid)).size, 2, 'both processes served calls');
      });
    }

    test('modern: the two rounds of an elicitation, served by two processes, are under one client span', async () => {
      recording.reset();
      const session = await connectUrl(demoClient('modern'), url);
      try {
        await session.callTool('elicit_name', {});
      } finally {
        await session.close();
      }
      const call = theSpan(recording.spans(), 'tools/call elicit_name', CLIENT);
      const rounds = await written(
        file,
        (s) => s.kind === SERVER && s.parentSpanId === call.spanContext().spanId,
        2,
        'both rounds',
      );
      assert.deepEqual(
        rounds.map((s) => s.attributes['mcpwire.outcome']),
        ['input_required', 'complete'],
      );
      assert.equal(new Set(rounds.map((s) => s.pid)).size, 2, 'each round reached another process');
    });

    test('legacy: the elicitation the server sends stays in the trace, relayed or not', async () => {
      recording.reset();
      const session = await connectUrl(demoClient('legacy'), url);
      try {
        // Several calls: the balancer spreads their POSTs, and the answers to elicitation/create, over both.
        for (let i = 0; i < 3; i++) await session.callTool('elicit_name', {});
      } finally {
        await session.close();
      }
      const spans = recording.spans();
      const calls = spans.filter((s) => s.name === 'tools/call elicit_name' && s.kind === CLIENT);
      const answered = spans.filter((s) => s.name === 'elicitation/create' && s.kind === SERVER);
      assert.equal(calls.length, 3);
      assert.equal(answered.length, 3);
      for (const call of calls) {
        const traceId = call.spanContext().traceId;
        const [served] = await written(
          file,
          (s) => s.traceId === traceId && s.kind === SERVER && s.name === 'tools/call elicit_name',
          1,
          'the server span',
        );
        assert.equal(served.parentSpanId, call.spanContext().spanId);
        const [asked] = await written(
          file,
          (s) => s.traceId === traceId && s.kind === CLIENT && s.name === 'elicitation/create',
          1,
          'the server’s request',
        );
        assert.equal(asked.parentSpanId, served.spanId);
        const answer = answered.find((s) => s.spanContext().traceId === traceId);
        assert.ok(answer, 'the client served the elicitation in the same trace');
        assert.equal(parentOf(answer), asked.spanId);
      }
      // The balancer alternates: some answers reached the process that did not ask, which relayed them.
      await written(file, (s) => s.name === 'cluster relay.forward', 1, 'an answer relayed through Redis');
    });

    test('legacy: Redis round trips are spans: the session shared, loaded, and a change of its state, acknowledged', async () => {
      recording.reset();
      const session = await connectUrl(demoClient('legacy'), url);
      try {
        for (let i = 0; i < 2; i++) await session.setLoggingLevel('warning');
      } finally {
        await session.close();
      }
      const redisSpans = (operation: string) =>
        written(
          file,
          (s) => s.name === `cluster ${operation}` && s.attributes['db.system.name'] === 'redis',
          1,
          `a ${operation} span`,
        );
      await redisSpans('session.register');
      await redisSpans('session.load');
      const setLevel = recording.spans().filter((s) => s.name === 'logging/setLevel' && s.kind === CLIENT);
      const traces = new Set(setLevel.map((s) => s.spanContext().traceId));
      const shares = await written(
        file,
        (s) => s.name === 'cluster state.share' && traces.has(s.traceId),
        2,
        'a state.share span in each logging/setLevel trace',
      );
      // Both processes hold the session (the balancer alternates): each change then waits for the other's
      // acknowledgement, a span beside the change's.
      const acks = await written(
        file,
        (s) => s.name === 'cluster state.ack' && traces.has(s.traceId),
        2,
        'a state.ack span in each logging/setLevel trace',
      );
      for (const span of [...shares, ...acks]) {
        const served = file
          .read()
          .find((s) => s.spanId === span.parentSpanId && s.kind === SERVER && s.name === 'logging/setLevel');
        assert.ok(served, 'the round trip is a child of the request that made it');
        assert.equal(span.kind, CLIENT);
      }
    });

    if (mode === 'SSE answers') {
      test('legacy: the event store writes a call’s stream to Redis inside the call’s trace', async () => {
        recording.reset();
        const session = await connectUrl(demoClient('legacy'), url);
        try {
          await session.callTool('add', { a: 1, b: 2 });
        } finally {
          await session.close();
        }
        const call = recording.spans().find((s) => s.name === 'tools/call add' && s.kind === CLIENT);
        assert.ok(call);
        const [write] = await written(
          file,
          (s) => s.name === 'cluster events.write' && s.traceId === call.spanContext().traceId,
          1,
          'an events.write span in the tools/call trace',
        );
        const served = file.read().find((s) => s.spanId === write.parentSpanId);
        assert.equal(served?.name, 'tools/call add', 'a child of the server span that answered');
        assert.equal(served?.kind, SERVER);
        assert.equal(write.kind, CLIENT);
        assert.equal(write.attributes['db.system.name'], 'redis');
      });
    }
  });
}
