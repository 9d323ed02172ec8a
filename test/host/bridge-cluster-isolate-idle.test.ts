// `isolate` in a cluster, when the copy of a session held by the process with its child closes while the session
// goes on elsewhere (idle there: the client's requests and its GET stream went to the other process): the child
// stays, serving the copy loaded again, and ends only when the session does.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Client, connectUrl } from '../../src/client/index.js';
import { RedisCluster } from '../../src/cluster/redis-cluster.js';
import { bridgeServer } from '../../src/host/bridge-server.js';
import { StreamableHTTPHandler } from '../../src/server/http/streamable-http-handler.js';
import type { EventLogger } from '../../src/telemetry/log-sink.js';
import { serveOn } from '../../src/test-support/mcp-http.js';
import { alive } from '../../src/test-support/process-alive.js';
import { type RedisServer, startRedisServer } from '../../src/test-support/redis-server.js';
import { bridgeChild } from '../../src/test-support/served-bridge.js';
import { until, within } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

const MS = 20_000;
const IDLE_MS = 1000;

let redis: RedisServer;
const cleanups: Array<() => Promise<unknown>> = [];
before(async () => {
  redis = await startRedisServer();
});
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  await redis?.stop();
});

/** The `event` fields of the log lines of one process. */
function events(): EventLogger & { closed: string[] } {
  const closed: string[] = [];
  const heard = (fields: Record<string, unknown>) => {
    if (fields.event === 'session.closed') closed.push(String(fields.reason));
  };
  return { closed, info: heard, warn: heard, error: heard };
}

/** A process of the deployment: a bridge with isolate, its handler, its cluster. */
async function node(keyPrefix: string) {
  const cluster = new RedisCluster({ redis: redis.url, keyPrefix });
  const logger = events();
  let handler: StreamableHTTPHandler | undefined;
  const bridge = await within(
    bridgeServer({
      upstream: bridgeChild('--legacy'),
      isolate: true,
      cluster,
      sessions: (id) => handler!.session(id),
      serverOptions: { logger },
      stderr: () => {},
      report: () => {},
    }),
    MS,
    'the bridge to start',
  );
  handler = new StreamableHTTPHandler(bridge.server, { cluster, sessionIdleTimeoutMs: IDLE_MS });
  await cluster.whenReady();
  const served = await serveOn(handler.node());
  cleanups.push(async () => {
    await served.close();
    await handler.close({ deadlineMs: 0 });
    await bridge.close();
    await cluster.close();
  });
  return { url: served.url, closed: logger.closed };
}

test("the child outlives its process's idle copy of the session, and ends with the session", async () => {
  const keyPrefix = `test-${randomUUID()}`;
  const a = await node(keyPrefix);
  const b = await node(keyPrefix);
  // Every POST reaches A until its first call has started the child there; then everything reaches B (the GET
  // stream from the start).
  let toB = false;
  const routed: typeof fetch = (_input, init) => fetch(init?.method === 'POST' && !toB ? a.url : b.url, init);
  const session = await within(
    connectUrl(new Client({ name: 'c', version: '1' }, { era: 'legacy' }), a.url, { fetch: routed }),
    MS,
    'connect',
  );
  let pid = 0;
  try {
    pid = Number(toolText(await session.callTool('pid')));
    toB = true;
    assert.equal(Number(toolText(await session.callTool('pid'))), pid);
    await until(() => a.closed.includes('idle'), MS, "A's copy of the session to close, idle there");
    assert.ok(alive(pid), 'the child stays: the session goes on in B');
    assert.equal(Number(toolText(await session.callTool('pid'))), pid, 'and still serves the session');
    assert.equal(toolText(await session.callTool('bump')), '1');
    assert.equal(toolText(await session.callTool('bump')), '2');
  } finally {
    await session.close(); // DELETE, to B
  }
  await until(() => !alive(pid), MS, `the child ${pid} to exit with the session`);
});
