// The structured log hook: a Server's `logger` (pino's and console's shape) hears sessions opened and closed,
// each request served with its outcome and duration, each refusal with its status and reason, streams resumed,
// and the shared store lost and found again; session ids only as hashes. `mcpwire serve --log-format json|text`
// writes the same to stderr.
import assert from 'node:assert/strict';
import { after, afterEach, describe, test } from 'node:test';
import { RedisCluster } from '../../src/cluster/redis-cluster.js';
import { createDemoServer } from '../../src/demo/demo-server.js';
import { connectUrl, StreamableHTTPHandler } from '../../src/index.js';
import type { EventLogger } from '../../src/telemetry/log-sink.js';
import { type CliRun, killCliRuns, runCli, serveDemo } from '../../src/test-support/cli-run.js';
import {
  get,
  initializeRequest,
  openSession,
  parseSse,
  post,
  serveOn,
  toolCall,
} from '../../src/test-support/mcp-http.js';
import { demoClient } from '../../src/test-support/otel.js';
import { startRedisServer } from '../../src/test-support/redis-server.js';
import { until } from '../../src/test-support/time-limit.js';
import { sessionHash } from '../../src/util/session-hash.js';

interface Line {
  level: 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  msg: string;
}

function capture(): EventLogger & { lines: Line[]; events(event: string): Line[] } {
  const lines: Line[] = [];
  const at =
    (level: Line['level']) =>
    (fields: Record<string, unknown>, msg: string): void => {
      lines.push({ level, fields, msg });
    };
  return {
    lines,
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    events: (event) => lines.filter((l) => l.fields.event === event),
  };
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});
after(() => killCliRuns());

async function served(logger: EventLogger, cluster?: RedisCluster) {
  const handler = new StreamableHTTPHandler(createDemoServer({ logger }), { cluster });
  const server = await serveOn(handler.node());
  cleanups.push(() => server.close());
  cleanups.push(() => handler.close({ deadlineMs: 0 }));
  return server;
}

describe('the log hook of a Server', { timeout: 60_000 }, () => {
  test('a session’s life: opened, each request with its duration, closed; ids only as hashes', async () => {
    const logger = capture();
    const { url } = await served(logger);
    const session = await connectUrl(demoClient('legacy'), url);
    const id = session.connection.sessionId!;
    await session.callTool('add', { a: 1, b: 2 });
    await session.close();
    await until(() => logger.events('session.closed').length === 1, 5000, 'the session to close');

    const [opened] = logger.events('session.opened');
    assert.equal(opened.fields.session, sessionHash(id));
    assert.equal(opened.fields.transport, 'streamable-http');
    assert.equal(opened.fields.protocolVersion, '2025-11-25');
    const call = logger.events('request').find((l) => l.fields.method === 'tools/call');
    assert.ok(call);
    assert.equal(call.level, 'info');
    assert.equal(call.fields.target, 'add');
    assert.equal(call.fields.outcome, 'complete');
    assert.equal(call.fields.session, sessionHash(id));
    assert.equal(typeof call.fields.durationMs, 'number');
    assert.match(call.msg, /^tools\/call add served: complete in [\d.]+ ms$/);
    const [closed] = logger.events('session.closed');
    assert.equal(closed.fields.reason, 'deleted');
    assert.equal(typeof closed.fields.durationMs, 'number');
    assert.ok(!JSON.stringify(logger.lines).includes(id), 'the session id itself is logged nowhere');
  });

  test('refusals with their status and reason; failed requests as warnings; a resumed stream', async () => {
    const logger = capture();
    const { url } = await served(logger);
    const gone = await post(url, toolCall(1, 'add', { a: 1, b: 2 }), { sessionId: 'ended-long-ago' });
    assert.equal(gone.status, 404);
    await gone.text();
    const [refused] = logger.events('refused');
    assert.equal(refused.level, 'warn');
    assert.equal(refused.fields.status, 404);
    assert.match(refused.msg, /^refused with 404: Not Found: the session does not exist/);

    const sessionId = await openSession(url);
    const failed = await post(url, toolCall(2, 'no_such_tool'), { sessionId });
    await failed.text();
    const error = logger.events('request').find((l) => l.fields.target === 'no_such_tool');
    assert.ok(error);
    assert.equal(error.level, 'warn');
    assert.equal(error.fields.code, -32602);
    assert.match(error.msg, /Unknown tool: no_such_tool/);

    const answer = await post(url, toolCall(3, 'add', { a: 2, b: 2 }), { sessionId });
    const [first] = parseSse(await answer.text());
    const resumed = await get(url, sessionId, { lastEventId: first.id });
    await resumed.text();
    const [replayed] = logger.events('stream.resumed');
    assert.equal(replayed.fields.outcome, 'replayed');
    assert.equal(replayed.fields.events, 1, 'the answer after the priming event');
  });

  test('the shared store lost, then found again: one line each, however many requests', async () => {
    const redis = await startRedisServer();
    cleanups.push(() => redis.stop());
    const cluster = new RedisCluster({ redis: redis.url });
    cleanups.push(() => cluster.close());
    await cluster.whenReady();
    const logger = capture();
    const { url } = await served(logger, cluster);
    await redis.stop();
    await until(() => cluster.unavailable() !== undefined, 10_000, 'the cluster to see Redis gone');
    for (let i = 0; i < 3; i++) {
      const res = await post(url, initializeRequest(i));
      assert.equal(res.status, 503);
      await res.text();
    }
    assert.equal(logger.events('store.unavailable').length, 1);
    assert.equal(logger.events('store.unavailable')[0].level, 'error');
    await redis.restart();
    await until(() => cluster.unavailable() === undefined, 15_000, 'the cluster to reconnect');
    const res = await post(url, initializeRequest(9));
    assert.equal(res.status, 200);
    await res.text();
    assert.equal(logger.events('store.available').length, 1);
  });
});

describe('mcpwire serve --log-format', { timeout: 60_000 }, () => {
  let run: CliRun | undefined;
  afterEach(async () => {
    run?.child.kill('SIGINT');
    await run?.exit(10_000).catch(() => {});
    run = undefined;
  });

  async function callAndRefuse(url: string): Promise<void> {
    const session = await connectUrl(demoClient('legacy'), url);
    await session.callTool('add', { a: 1, b: 2 });
    await session.close();
    const refused = await post(url, toolCall(1, 'add'), { sessionId: 'nope' });
    await refused.text();
  }

  test('json: one object per line on stderr, as pino writes them', async () => {
    ({ run } = await serveDemo(['--log-format', 'json']));
    const url = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(run.stdout())![0];
    await callAndRefuse(url);
    const lines = () =>
      run!
        .stderr()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    await until(() => lines().some((l) => l.event === 'refused'), 5000, 'the refusal line');
    const call = lines().find((l) => l.event === 'request' && l.method === 'tools/call');
    assert.ok(call);
    assert.equal(call.level, 'info');
    assert.equal(call.target, 'add');
    assert.equal(typeof call.time, 'string');
    assert.match(String(call.msg), /^tools\/call add served: complete/);
    assert.ok(lines().some((l) => l.event === 'session.opened'));
    const refused = lines().find((l) => l.event === 'refused')!;
    assert.equal(refused.status, 404);
    assert.equal(refused.level, 'warn');
    // The refusal is told once: not again as an error line.
    assert.ok(!run.stderr().includes('mcpwire: Not Found'));
  });

  test('text: one line a person reads; a wrong format is a usage error', async () => {
    ({ run } = await serveDemo(['--log-format', 'text']));
    const url = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(run.stdout())![0];
    await callAndRefuse(url);
    await until(() => run!.stderr().includes('refused with 404'), 5000, 'the refusal line');
    assert.match(
      run.stderr(),
      /^\S+Z info {2}tools\/call add served: complete in [\d.]+ ms method=tools\/call /m,
    );
    assert.match(run.stderr(), /^\S+Z warn {2}refused with 404: Not Found: .* status=404 code=-32000$/m);

    const wrong = runCli(['serve', '--log-format', 'yaml']);
    assert.equal(await wrong.exit(), 2);
    assert.match(wrong.stderr(), /--log-format is json or text, not "yaml"/);
  });
});
