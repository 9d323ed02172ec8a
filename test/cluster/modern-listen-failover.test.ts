// A listen stream of mcpwire's client, through a round-robin proxy (no affinity) over three `mcpwire serve
// --redis` processes: a toggle_tool served by another process reaches it; the process holding it is killed
// with -9, the client's listen opens again on a survivor by itself, and the next change served elsewhere
// reaches it there. Needs `npm run build` first and redis-server on PATH.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '../../src/client/client.js';
import type { ClientSession } from '../../src/client/client-session.js';
import type { Listen, ListenEvent } from '../../src/client/listen.js';
import { connectUrl } from '../../src/client/negotiation/connect-url.js';
import { listenReader } from '../../src/test-support/listen-reader.js';
import { type ProcessCluster, startProcessCluster } from '../../src/test-support/process-cluster.js';
import { type RedisBackend, startRedisBackend } from '../../src/test-support/redis-backend.js';
import {
  BACKEND_HEADER,
  type RoundRobinProxy,
  startRoundRobinProxy,
} from '../../src/test-support/round-robin-proxy.js';
import { within } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

const LIMIT = 15_000;

let redis: RedisBackend;
let cluster: ProcessCluster;
let proxy: RoundRobinProxy;

before(async () => {
  redis = await startRedisBackend();
  cluster = await startProcessCluster(3, { redis: redis.address });
  proxy = await startRoundRobinProxy(cluster.urls());
});

after(async () => {
  await proxy?.close();
  await cluster?.stopAll();
  await redis?.stop();
});

interface Served {
  method: string;
  backend: string | null;
  status: number;
}

/** Which process answered each POST (or which the proxy failed to reach), by JSON-RPC method, in order. */
function servedFetch(log: Served[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (init?.method === 'POST' && typeof init.body === 'string') {
      log.push({
        method: JSON.parse(init.body).method,
        backend: res.headers.get(BACKEND_HEADER),
        status: res.status,
      });
    }
    return res;
  };
}

const reader = (listen: Listen) => listenReader(listen, LIMIT);

const what = (e: ListenEvent) => (e.type === 'notification' ? e.notification.method : e.type);

test('kill -9 of the process holding a listen stream: the listen opens again elsewhere and hears the next change', {
  timeout: 60_000,
}, async () => {
  const log: Served[] = [];
  const client = new Client(
    { name: 'failover', version: '1.0.0' },
    { era: 'modern', requestTimeoutMs: LIMIT },
  );
  const session: ClientSession = await within(
    connectUrl(client, `${proxy.url}/mcp`, {
      fetch: servedFetch(log),
      retry: { initialDelayMs: 100, maxDelayMs: 500, maxAttempts: 5 },
    }),
    LIMIT,
    'connect',
  );
  try {
    assert.equal(session.era, 'modern');
    const listen = await within(session.listen({ toolsListChanged: true }), LIMIT, 'the listen ack');
    const next = reader(listen);
    // Served listens: a re-open the proxy sent to the dead process before it left the rotation got its 502.
    const listens = () => log.filter((s) => s.method === 'subscriptions/listen' && s.status === 200);
    const holder = listens()[0].backend!;

    // Toggles until a process other than `than` served it; each toggle is one change the stream must hear.
    const toggleElsewhere = async (than: string, label: string) => {
      for (let n = 1; ; n++) {
        const result = await within(session.callTool('toggle_tool'), LIMIT, 'toggle_tool');
        assert.match(toolText(result), /^(Added|Removed) the tool bonus$/);
        if (log.filter((s) => s.method === 'tools/call').at(-1)!.backend === than) continue;
        for (let i = 1; i <= n; i++) {
          assert.equal(what(await next(`${label}, ${i} of ${n}`)), 'notifications/tools/list_changed');
        }
        return;
      }
    };
    // A change served by another process reaches the stream, once (the next event below is the resync).
    await toggleElsewhere(holder, 'the change made elsewhere');

    // The holder dies; a balancer's health check takes it out of the rotation. A re-open that reached it first
    // got the proxy's 502 and was tried again.
    const killed = cluster.processes.findIndex((p) => p.url === holder);
    assert.equal((await cluster.kill(killed, 'SIGKILL')).signal, 'SIGKILL');
    proxy.setBackends(cluster.urls());
    assert.equal(what(await next('the resync after the re-open')), 'resync');
    const reopened = listens().at(-1)!.backend!;
    assert.equal(listens().length, 2, 'the listen was opened once more');
    assert.notEqual(reopened, holder);
    assert.ok(cluster.urls().includes(reopened));

    // A change served by the other survivor reaches the re-opened stream.
    await toggleElsewhere(reopened, 'the change after the failover');
    await listen.close();
    assert.deepEqual(await within(listen.ended, LIMIT, 'listen end'), { reason: 'closed' });
  } finally {
    await session.close();
  }
});
