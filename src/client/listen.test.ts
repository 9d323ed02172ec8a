import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { describe, test } from 'node:test';
import { McpError } from '../jsonrpc/errors.js';
import { CapabilityError } from '../peer/errors.js';
import { createMemoryPair } from '../peer/memory.js';
import { MetaKey } from '../protocol/envelope.js';
import type { ServerCapabilities } from '../protocol/types.js';
import { Server } from '../server/server.js';
import { ModernStdio } from '../server/stdio/stdio-modern.js';
import { memoryPeer } from '../test-support/memory-peer.js';
import {
  cut,
  discoverResult,
  error,
  type Hit,
  modern,
  openSse,
  result,
  scriptedServer,
  sendJson,
  writeEvent,
} from '../test-support/scripted-http.js';
import { until, within } from '../test-support/time-limit.js';
import { Client } from './client.js';
import { ModernHTTPClientConnection } from './http/modern-http-client-connection.js';
import type { ListenEvent } from './listen.js';
import type { RetryPolicy } from './retry-policy.js';

/*
 * subscriptions/listen from the client's side (spec 2026-07-28 §1.7): open on the acknowledgement, re-open with
 * a resync after an abrupt drop, end on a result or notifications/cancelled, and never harm the session.
 */

const LISTS: ServerCapabilities = { tools: { listChanged: true }, prompts: { listChanged: true } };
const client = new Client(
  { name: 'listen-test', version: '1' },
  { requestTimeoutMs: 5000, retry: { initialDelayMs: 10, maxDelayMs: 50, maxAttempts: 3 } },
);
/** A client of its own, re-opening listens by `retry`. */
const retrying = (retry: Partial<RetryPolicy>) =>
  new Client({ name: 'listen-test', version: '1' }, { retry });
const tag = (id: unknown) => ({ [MetaKey.SubscriptionId]: id });
const ack = (id: unknown, notifications: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  method: 'notifications/subscriptions/acknowledged',
  params: { notifications, _meta: tag(id) },
});
const toolsChanged = (id: unknown) => ({
  jsonrpc: '2.0',
  method: 'notifications/tools/list_changed',
  params: { _meta: tag(id) },
});

/** A listen script: each listen is acknowledged, then cut 10 ms later. */
function ackedThenCut(_n: number, hit: Hit, res: ServerResponse): void {
  openSse(res, [ack(hit.message.id, { toolsListChanged: true })]);
  setTimeout(() => cut(res), 10);
}

/** A modern server whose n-th listen (from 1) is answered by `onListen`; tools/list answered empty. */
async function listenServer(
  onListen: (n: number, hit: Hit, res: ServerResponse) => void,
  capabilities: ServerCapabilities = LISTS,
  by: Client = client,
) {
  let n = 0;
  const server = await scriptedServer(
    modern((hit, res) => {
      const m = hit.message;
      if (m.method === 'subscriptions/listen') return onListen(++n, hit, res);
      sendJson(res, result(m.id, { tools: [] }));
    }, capabilities),
  );
  const session = await within(by.connect(new ModernHTTPClientConnection(server.url)), 10_000, 'connect');
  return {
    server,
    session,
    listens: () => server.posts('subscriptions/listen'),
    async close() {
      await session.close();
      await server.close();
    },
  };
}

async function take(iterator: AsyncIterator<ListenEvent>, label: string): Promise<ListenEvent> {
  const next = await within(iterator.next(), 5000, label);
  assert.equal(next.done, false, `${label}: the listen ended`);
  return next.value;
}

/**
 * A listen acknowledged, then cut: its re-opens meet `refusals` in turn, then one is served and carries a
 * notification. The reader must get the resync, then the notification. Resolves with the listens sent.
 */
async function reopenAfter(refusals: ((hit: Hit, res: ServerResponse) => void)[]): Promise<Hit[]> {
  const t = await listenServer((n, hit, res) => {
    const refuse = refusals[n - 2];
    if (refuse !== undefined) return refuse(hit, res);
    openSse(res, [ack(hit.message.id, { toolsListChanged: true })]);
    if (n === 1) setTimeout(() => cut(res), 20);
    else writeEvent(res, toolsChanged(hit.message.id));
  });
  try {
    const listen = await within(t.session.listen({ toolsListChanged: true }), 5000, 'listen');
    const events = listen[Symbol.asyncIterator]();
    assert.equal((await take(events, 'the resync')).type, 'resync');
    assert.equal((await take(events, 'the notification')).type, 'notification');
    assert.equal(listen.isOpen, true);
    await listen.close();
    return t.listens();
  } finally {
    await t.close();
  }
}

describe('listen over HTTP', () => {
  test('resolves on the ack with the honoured filter, then yields what is tagged; close closes the stream', async () => {
    const t = await listenServer((_n, hit, res) => {
      openSse(res, [ack(hit.message.id, { toolsListChanged: true }), toolsChanged(hit.message.id)]);
    });
    try {
      const changed: number[] = [];
      t.session.on('toolsChanged', () => changed.push(1));
      const listen = await within(
        t.session.listen({ toolsListChanged: true, promptsListChanged: true }),
        5000,
        'listen',
      );
      assert.deepEqual(listen.honoured, { toolsListChanged: true });
      const events = listen[Symbol.asyncIterator]();
      const event = await take(events, 'the notification');
      assert.equal(
        event.type === 'notification' && event.notification.method,
        'notifications/tools/list_changed',
      );
      assert.deepEqual(changed, [1]);
      const [hit] = t.listens();
      assert.deepEqual(hit.message.params.notifications, {
        toolsListChanged: true,
        promptsListChanged: true,
      });
      await listen.close();
      await within(hit.closed, 5000, 'the stream to close');
      assert.equal(hit.aborted, true);
      assert.deepEqual(await listen.ended, { reason: 'closed' });
    } finally {
      await t.close();
    }
  });

  test('an abrupt drop re-opens under a new id, and the reader is told to resync', async () => {
    const [first, second] = await reopenAfter([]);
    assert.notEqual(first.message.id, second.message.id);
  });

  test('a graceful result ends it, with no re-open', async () => {
    const t = await listenServer((_n, hit, res) => {
      const id = hit.message.id;
      openSse(res, [
        ack(id, { toolsListChanged: true }),
        result(id, { resultType: 'complete', _meta: tag(id) }),
      ]);
      res.end();
    });
    try {
      const listen = await within(t.session.listen({ toolsListChanged: true }), 5000, 'listen');
      assert.deepEqual(await within(listen.ended, 5000, 'the end'), { reason: 'ended' });
      const events = listen[Symbol.asyncIterator]();
      assert.equal((await within(events.next(), 5000, 'done')).done, true);
      await new Promise((r) => setTimeout(r, 100)); // past any retry delay
      assert.equal(t.listens().length, 1);
    } finally {
      await t.close();
    }
  });

  test('an ack whose filter is not one: the listen fails as the server’s fault, is given up, and the session goes on', async () => {
    const t = await listenServer((_n, hit, res) => {
      openSse(res, [ack(hit.message.id, { resourceSubscriptions: 'demo://readme' })]);
    });
    try {
      await assert.rejects(
        within(t.session.listen({ toolsListChanged: true }), 5000, 'listen'),
        /acknowledged subscriptions\/listen with a filter that is not one: notifications\.resourceSubscriptions must be an array of strings; the listen was cancelled/,
      );
      const [hit] = t.listens();
      await within(hit!.closed, 5000, 'the stream to close');
      assert.equal(t.listens().length, 1, 'not opened again');
      assert.deepEqual((await t.session.listTools()).tools, []);
    } finally {
      await t.close();
    }
  });

  test('a server without a matching capability: CapabilityError, and nothing sent', async () => {
    const t = await listenServer(() => assert.fail('no listen may be sent'), { tools: {} });
    try {
      await assert.rejects(t.session.listen({ toolsListChanged: true }), CapabilityError);
      assert.equal(t.listens().length, 0);
    } finally {
      await t.close();
    }
  });

  test('a refused listen rejects, and the session goes on', async () => {
    const t = await listenServer((_n, hit, res) =>
      sendJson(res, error(hit.message.id, -32602, 'Invalid filter'), 400),
    );
    try {
      await assert.rejects(
        t.session.listen({ toolsListChanged: true }),
        (err: McpError) => err instanceof McpError && err.code === -32602,
      );
      assert.deepEqual((await t.session.listTools()).tools, []);
    } finally {
      await t.close();
    }
  });

  test('a listen that keeps dropping fails once the retries are spent, and the session goes on', async () => {
    // Acknowledged, then dropped as soon as the ack is on the wire: each re-open is a failed attempt.
    const t = await listenServer((_n, hit, res) => {
      openSse(res);
      res.write(
        `event: message\ndata: ${JSON.stringify(ack(hit.message.id, { toolsListChanged: true }))}\n\n`,
        () => cut(res),
      );
    });
    try {
      const listen = await within(t.session.listen({ toolsListChanged: true }), 5000, 'listen');
      const end = await within(listen.ended, 10_000, 'the end');
      assert.equal(end.reason, 'failed');
      // The first open and maxAttempts (3) re-opens; no more.
      assert.equal(t.listens().length, 4);
      assert.deepEqual((await t.session.listTools()).tools, []);
    } finally {
      await t.close();
    }
  });
  test('a re-open refused by a balancer (502) and by a busy server (503) is tried again within the budget', async () => {
    // As behind a balancer while a process leaves its rotation (a JSON-RPC error with id null), then from a
    // server that cannot serve one now (no body); the third re-open, the budget's last, is served.
    const listens = await reopenAfter([
      (_hit, res) => sendJson(res, error(null, -32603, 'Bad Gateway: backend 127.0.0.1:1 failed'), 502),
      (_hit, res) => res.writeHead(503).end(),
    ]);
    assert.equal(listens.length, 4);
  });
  test('a re-open refused every time ends the listen with the last refusal once the budget is spent', async () => {
    const t = await listenServer((n, hit, res) => {
      if (n > 1) return sendJson(res, error(hit.message.id, -32603, `Service Unavailable: try ${n}`), 503);
      openSse(res, [ack(hit.message.id, { toolsListChanged: true })]);
      setTimeout(() => cut(res), 20);
    });
    try {
      const listen = await within(t.session.listen({ toolsListChanged: true }), 5000, 'listen');
      const end = await within(listen.ended, 10_000, 'the end');
      assert.equal(end.reason, 'failed');
      assert.match(end.reason === 'failed' ? end.error.message : '', /Service Unavailable: try 4/);
      assert.equal(t.listens().length, 4);
      assert.deepEqual((await t.session.listTools()).tools, []);
    } finally {
      await t.close();
    }
  });
  test('the session closed while a dropped listen waits to re-open: the listen ends as closed, not re-opened', async () => {
    // A budget that would outlast the test: only the session's close can end the listen in time.
    const patient = retrying({ initialDelayMs: 50, maxDelayMs: 50, maxAttempts: 1000 });
    const t = await listenServer(ackedThenCut, LISTS, patient);
    try {
      const listen = await within(t.session.listen({ toolsListChanged: true }), 5000, 'listen');
      await within(t.listens()[0].closed, 5000, 'the drop');
      await t.session.close();
      assert.deepEqual(await within(listen.ended, 5000, 'the end'), { reason: 'closed' });
      await new Promise((r) => setTimeout(r, 100)); // past the re-open delay
      assert.equal(t.listens().length, 1);
    } finally {
      await t.close();
    }
  });
  test('a stream that stayed up a while drops without using up the retries', async () => {
    // maxAttempts 1: a quick drop uses the one retry; a drop after over a second of health starts afresh.
    const once = retrying({ initialDelayMs: 10, maxDelayMs: 50, maxAttempts: 1 });
    let second: ServerResponse | undefined;
    const t = await listenServer(
      (n, hit, res) => {
        openSse(res, [ack(hit.message.id, { toolsListChanged: true })]);
        if (n === 1) setTimeout(() => cut(res), 10);
        if (n === 2) second = res;
      },
      LISTS,
      once,
    );
    try {
      const listen = await within(t.session.listen({ toolsListChanged: true }), 20_000, 'listen');
      // Health counts from when the client took the ack (its resync), not from when the server sent it: a cut
      // timed from the server's side (1200 ms) came 900 ms after an ack read late, a quick drop.
      assert.equal((await take(listen[Symbol.asyncIterator](), 'the resync')).type, 'resync');
      await new Promise((r) => setTimeout(r, 1100));
      cut(second!);
      await until(() => t.listens().length === 3, 20_000, 'the third open');
      assert.equal(listen.isOpen, true);
      await listen.close();
    } finally {
      await t.close();
    }
  });
  test("the caller's signal aborted while a dropped listen waits to re-open: it ends, and is not re-opened", async () => {
    const slow = retrying({ initialDelayMs: 300, maxDelayMs: 300, jitter: 0, maxAttempts: 3 });
    const t = await listenServer(ackedThenCut, LISTS, slow);
    try {
      const controller = new AbortController();
      const listen = await within(
        t.session.listen({ toolsListChanged: true }, { signal: controller.signal }),
        5000,
        'listen',
      );
      await within(t.listens()[0].closed, 5000, 'the drop');
      controller.abort();
      assert.deepEqual(await within(listen.ended, 5000, 'the end'), { reason: 'closed' });
      await new Promise((r) => setTimeout(r, 400)); // past the re-open delay
      assert.equal(t.listens().length, 1);
    } finally {
      await t.close();
    }
  });
});

describe('listen over a connection (stdio-like)', () => {
  test('notifications/cancelled naming the listen ends it; the session goes on', async () => {
    const peer = memoryPeer((m) => {
      if (m.method === 'server/discover') return [result(m.id, discoverResult(LISTS))];
      if (m.method === 'subscriptions/listen') return [ack(m.id, { toolsListChanged: true })];
      return undefined;
    });
    const session = await within(client.connect(peer.connection), 10_000, 'connect');
    try {
      const listen = await within(session.listen({ toolsListChanged: true }), 5000, 'listen');
      const request = peer.seen.find((m) => m.method === 'subscriptions/listen');
      await peer.send({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: request.id },
      });
      assert.deepEqual(await within(listen.ended, 5000, 'the end'), { reason: 'ended' });
      await within(session.ping(), 5000, 'ping');
      assert.equal(peer.seen.filter((m) => m.method === 'subscriptions/listen').length, 1);
    } finally {
      await session.close();
    }
  });

  test('our own Server: a tool registered later reaches the listen', async () => {
    const server = new Server({ name: 'ours', version: '1' });
    server.tool({ name: 'first', inputSchema: { type: 'object' } }, () => ({ content: [] }));
    const [serverEnd, clientEnd] = createMemoryPair();
    serverEnd.start(new ModernStdio(server, serverEnd, () => {}));
    const session = await within(client.connect(clientEnd), 10_000, 'connect');
    try {
      const listen = await within(session.listen({ toolsListChanged: true }), 5000, 'listen');
      assert.deepEqual(listen.honoured, { toolsListChanged: true });
      const events = listen[Symbol.asyncIterator]();
      server.tool({ name: 'second', inputSchema: { type: 'object' } }, () => ({ content: [] }));
      const event = await take(events, 'list_changed');
      assert.equal(
        event.type === 'notification' && event.notification.method,
        'notifications/tools/list_changed',
      );
      await listen.close();
      await until(() => !listen.isOpen, 5000, 'closed');
    } finally {
      await session.close();
      await server.close();
    }
  });
});

describe('a listen ends with its session, in both eras', () => {
  /** Our Server over a memory pair, in `era`; `serverEnd` closes the connection from the server's side. */
  async function paired(era: 'legacy' | 'modern') {
    const server = new Server({ name: 'ours', version: '1' });
    server.tool({ name: 'first', inputSchema: { type: 'object' } }, () => ({ content: [] }));
    const [serverEnd, clientEnd] = createMemoryPair();
    if (era === 'modern') serverEnd.start(new ModernStdio(server, serverEnd, () => {}));
    else server.connect(serverEnd);
    const session = await within(
      new Client({ name: 't', version: '1' }, { era }).connect(clientEnd),
      10_000,
      'connect',
    );
    assert.equal(session.era, era);
    return { server, serverEnd, session };
  }

  for (const era of ['legacy', 'modern'] as const) {
    test(`${era}: closed by this client, an open listen ends as closed and its reader is released`, async () => {
      const { server, session } = await paired(era);
      try {
        const listen = await within(session.listen({ toolsListChanged: true }), 5000, 'listen');
        const reading = listen[Symbol.asyncIterator]().next();
        await session.close();
        assert.deepEqual(await within(listen.ended, 5000, 'the end'), { reason: 'closed' });
        assert.equal((await within(reading, 5000, 'the reader')).done, true);
        assert.equal(listen.isOpen, false);
      } finally {
        await server.close();
      }
    });

    test(`${era}: the connection closed under it, an open listen fails with ConnectionClosedError`, async () => {
      const { server, serverEnd, session } = await paired(era);
      try {
        const listen = await within(session.listen({ toolsListChanged: true }), 5000, 'listen');
        await serverEnd.close();
        const end = await within(listen.ended, 5000, 'the end');
        assert.equal(end.reason, 'failed');
        assert.equal(end.reason === 'failed' && end.error.name, 'ConnectionClosedError');
      } finally {
        await session.close();
        await server.close();
      }
    });
  }

  test('legacy: a listen asked for after the session closed ends at once, as closed', async () => {
    const { server, session } = await paired('legacy');
    try {
      await session.close();
      // Lists only: the legacy listen sends nothing, so only the session can tell it is over.
      const listen = await within(session.listen({ toolsListChanged: true }), 5000, 'listen');
      assert.deepEqual(await within(listen.ended, 5000, 'the end'), { reason: 'closed' });
    } finally {
      await server.close();
    }
  });
});
