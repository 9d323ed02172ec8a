import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest } from '../jsonrpc/types.js';
import { ManualClock } from '../test-support/manual-clock.js';
import { memoryPeer } from '../test-support/memory-peer.js';
import type { Connection, Receiver } from './connection.js';
import {
  ConnectionClosedError,
  InvalidResponseError,
  RequestCancelledError,
  RequestTimeoutError,
  SessionExpiredError,
} from './errors.js';
import { JsonRpcPeer } from './jsonrpc-peer.js';
import { createMemoryPair } from './memory.js';
import type { PeerOptions } from './peer-options.js';
import { HandlerContext, type RequestContext } from './request-context.js';
import type { Responder } from './responder.js';

type Handler = (
  req: JsonRpcRequest,
  ctx: RequestContext,
) => Promise<Record<string, unknown>> | Record<string, unknown>;

/** A bare peer: requests go to `handler`, notifications are recorded, a restart calls `reinitialize`. */
class Peer extends JsonRpcPeer {
  notifications: JsonRpcNotification[] = [];
  onNote: ((n: JsonRpcNotification) => void | Promise<void>) | undefined;
  constructor(
    connection: Connection,
    handler: Handler = () => ({}),
    options?: PeerOptions,
    reinitialize?: () => Promise<void>,
  ) {
    const responder: Responder = {
      telemetry: undefined,
      context: (request, running, info) => new HandlerContext(this, this, request, running, info),
      answer: (req, ctx) => handler(req, ctx),
      notified: (n) => {
        this.notifications.push(n);
        return this.onNote?.(n);
      },
      reinitialize,
    };
    super(connection, responder, options);
    this.protocolVersion = '2025-11-25';
    this.start();
  }
}

/** A connection that records what the session sends, for asserting exact wire messages. */
class Recorder implements Connection {
  sent: Array<{ message: JsonRpcMessage; related: unknown }> = [];
  receiver!: Receiver;
  start(r: Receiver) {
    this.receiver = r;
  }
  async send(message: JsonRpcMessage, related?: unknown) {
    this.sent.push({ message, related });
  }
  async close() {
    this.receiver.closed();
  }
}

const tick = () => new Promise((r) => setImmediate(r));

function pair(handler?: Handler, options?: PeerOptions) {
  const [a, b] = createMemoryPair();
  const client = new Peer(a, undefined, options);
  const server = new Peer(b, handler);
  return { client, server };
}

describe('Session', () => {
  test('correlates concurrent requests with their responses', async () => {
    const { client } = pair(async (req) => {
      const n = req.params!.n as number;
      await new Promise((r) => setTimeout(r, (5 - n) * 2));
      return { n };
    });
    const results = await Promise.all([1, 2, 3, 4].map((n) => client.request('echo', { n })));
    assert.deepEqual(
      results.map((r) => r.n),
      [1, 2, 3, 4],
    );
  });

  test('uses a fresh id for every request', async () => {
    const rec = new Recorder();
    const s = new Peer(rec);
    for (let i = 0; i < 3; i++) s.request('x').catch(() => {});
    const ids = rec.sent.map((s) => (s.message as JsonRpcRequest).id);
    assert.equal(new Set(ids).size, 3);
    await s.close();
  });

  test('answers ping with an empty result', async () => {
    const rec = new Recorder();
    new Peer(rec, () => {
      throw new Error('ping must not reach the handler');
    });
    rec.receiver.message({ jsonrpc: '2.0', id: 'p', method: 'ping' });
    await tick();
    assert.deepEqual(rec.sent, [{ message: { jsonrpc: '2.0', id: 'p', result: {} }, related: 'p' }]);
  });

  test('a thrown McpError keeps its code; other errors become -32603 with the message only', async () => {
    const { client } = pair((req) => {
      if (req.method === 'mcp') throw new McpError(-32002, 'Resource not found', { uri: 'a://b' });
      throw new Error('disk on fire');
    });
    await assert.rejects(
      client.request('mcp'),
      (e: McpError) => e.code === -32002 && e.message === 'Resource not found',
    );
    await assert.rejects(client.request('other'), (e: McpError) => {
      assert.equal(e.code, ErrorCode.InternalError);
      assert.equal(e.message, 'disk on fire');
      assert.equal(e.data, undefined);
      return true;
    });
  });

  test('invalid params are refused with -32602 naming the field', async () => {
    const { client } = pair();
    await assert.rejects(client.request('tools/call', { name: 7 }), (e: McpError) => {
      assert.equal(e.code, ErrorCode.InvalidParams);
      assert.match(e.message, /name/);
      return true;
    });
  });

  test('a request id already in flight is refused', async () => {
    const rec = new Recorder();
    new Peer(rec, () => new Promise(() => {}));
    rec.receiver.message({ jsonrpc: '2.0', id: 7, method: 'slow' });
    rec.receiver.message({ jsonrpc: '2.0', id: 7, method: 'slow' });
    await tick();
    assert.equal(rec.sent.length, 1);
    const reply = rec.sent[0].message as { error: { code: number; message: string } };
    assert.equal(reply.error.code, ErrorCode.InvalidRequest);
    assert.match(reply.error.message, /already in use/);
  });

  test('asked: the ids this session sent, answered or not, and no other', async () => {
    const plain = new Peer(new Recorder());
    assert.equal(plain.asked(0), false);
    plain.request('ping', undefined).catch(() => {});
    assert.equal(plain.asked(0), true);
    assert.equal(plain.asked(1), false);
    assert.equal(plain.asked('0'), false);

    const prefixed = new Peer(new Recorder());
    prefixed.requestIdPrefix = 'n1:';
    const first = prefixed.request('ping', undefined);
    prefixed.request('ping', undefined).catch(() => {});
    (prefixed as unknown as Receiver).message({ jsonrpc: '2.0', id: 'n1:0', result: {} });
    await first;
    // Answered (n1:0) and pending (n1:1) were asked; the rest never were.
    assert.deepEqual(
      ['n1:0', 'n1:1', 'n1:2', 'n1:', 'n1:-1', 'n1:1.0', 'n2:0', 0].map((id) => prefixed.asked(id)),
      [true, true, false, false, false, false, false, false],
    );
  });

  test('a response to no request is reported; a late one (after a timeout) is dropped quietly', async () => {
    const clock = new ManualClock();
    const rec = new Recorder();
    const peer = new Peer(rec, undefined, { clock, requestTimeoutMs: 10 });
    const errors: Error[] = [];
    peer.onerror = (e) => errors.push(e);
    const timedOut = peer.request('slow', undefined);
    clock.advance(10);
    await assert.rejects(timedOut, RequestTimeoutError);
    rec.receiver.message({ jsonrpc: '2.0', id: 0, result: {} });
    assert.equal(errors.length, 0);
    rec.receiver.message({ jsonrpc: '2.0', id: 9, result: {} });
    assert.equal(errors.length, 1);
    assert.match(errors[0].message, /Ignored a response with id 9: no request was sent with that id/);
  });

  test('responses travel with the id of the request they answer', async () => {
    const rec = new Recorder();
    new Peer(rec, async (_req, ctx) => {
      await ctx.notify('notifications/message', { level: 'info', data: 'x' });
      return {};
    });
    rec.receiver.message({ jsonrpc: '2.0', id: 'r1', method: 'work' });
    await tick();
    assert.deepEqual(
      rec.sent.map((s) => s.related),
      ['r1', 'r1'],
    );
  });

  test('notifications are handled in arrival order even when a handler is async', async () => {
    const { client, server } = pair();
    const seen: number[] = [];
    server.onNote = async (n) => {
      const i = n.params!.i as number;
      if (i === 0) await new Promise((r) => setTimeout(r, 20));
      seen.push(i);
    };
    for (let i = 0; i < 5; i++) await client.notify('notifications/test', { i });
    await new Promise((r) => setTimeout(r, 60));
    assert.deepEqual(seen, [0, 1, 2, 3, 4]);
  });

  test('requests run concurrently', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const { client } = pair(async (req) => {
      if (req.method === 'blocked') await gate;
      return { method: req.method };
    });
    const blocked = client.request('blocked');
    assert.deepEqual(await client.request('free'), { method: 'free' });
    release();
    assert.deepEqual(await blocked, { method: 'blocked' });
  });

  test('batches are refused after 2025-03-26 and run for 2025-03-26', async () => {
    const rec = new Recorder();
    const peer = new Peer(rec);
    const batch: JsonRpcMessage[] = [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ];
    rec.receiver.batch(batch);
    await tick();
    assert.equal(rec.sent.length, 1);
    const refusal = rec.sent[0].message as { id: null; error: { code: number; message: string } };
    assert.equal(refusal.id, null);
    assert.equal(refusal.error.code, ErrorCode.InvalidRequest);
    assert.match(refusal.error.message, /2025-11-25/);

    peer.protocolVersion = '2025-03-26';
    rec.receiver.batch(batch);
    await tick();
    assert.deepEqual(
      rec.sent.slice(1).map((s) => (s.message as { id: number }).id),
      [1, 2],
    );
  });
});

describe('Session timeouts', () => {
  test('a request times out with a typed error naming the method and time, and sends cancelled', async () => {
    const clock = new ManualClock();
    const rec = new Recorder();
    const s = new Peer(rec, undefined, { clock, requestTimeoutMs: 1000 });
    const p = s.request('tools/call', { name: 'slow' });
    clock.advance(999);
    assert.equal(rec.sent.length, 1);
    clock.advance(1);
    await assert.rejects(p, (e: RequestTimeoutError) => {
      assert.ok(e instanceof RequestTimeoutError);
      assert.equal(e.method, 'tools/call');
      assert.equal(e.waitedMs, 1000);
      assert.match(e.message, /tools\/call.*1000 ms/);
      return true;
    });
    await tick();
    const cancel = rec.sent[1].message as JsonRpcNotification;
    assert.equal(cancel.method, 'notifications/cancelled');
    assert.equal(cancel.params!.requestId, (rec.sent[0].message as JsonRpcRequest).id);
  });

  test('a per-call timeout overrides the default', async () => {
    const clock = new ManualClock();
    const s = new Peer(new Recorder(), undefined, { clock, requestTimeoutMs: 1000 });
    const p = s.request('x', undefined, { timeoutMs: 50 });
    clock.advance(50);
    await assert.rejects(p, RequestTimeoutError);
  });

  test('progress resets the timeout, with or without a progress callback', async () => {
    for (const withCallback of [true, false]) {
      const clock = new ManualClock();
      const rec = new Recorder();
      const s = new Peer(rec, undefined, { clock, requestTimeoutMs: 100 });
      const progress: number[] = [];
      const params = withCallback ? {} : { _meta: { progressToken: 'tok' } };
      const p = s.request(
        'x',
        params,
        withCallback ? { onprogress: (pr) => progress.push(pr.progress) } : {},
      );
      const sent = rec.sent[0].message as JsonRpcRequest;
      const token = (sent.params!._meta as { progressToken: string | number }).progressToken;
      for (let i = 1; i <= 5; i++) {
        clock.advance(90);
        rec.receiver.message({
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: token, progress: i },
        });
      }
      clock.advance(90);
      rec.receiver.message({ jsonrpc: '2.0', id: sent.id, result: { done: true } });
      assert.deepEqual(await p, { done: true });
      assert.deepEqual(progress, withCallback ? [1, 2, 3, 4, 5] : []);
      assert.equal(clock.pending, 0);
    }
  });

  test('maxTotalTimeoutMs ends a request however much progress arrives', async () => {
    const clock = new ManualClock();
    const rec = new Recorder();
    const s = new Peer(rec, undefined, { clock, requestTimeoutMs: 100, maxTotalTimeoutMs: 250 });
    const p = s.request('x', {}, { onprogress: () => {} });
    const token = ((rec.sent[0].message as JsonRpcRequest).params!._meta as { progressToken: number })
      .progressToken;
    const outcome: { failed?: Error } = {};
    p.catch((e) => {
      outcome.failed = e;
    });
    for (let i = 0; i < 3; i++) {
      clock.advance(80);
      rec.receiver.message({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: token, progress: i },
      });
    }
    await tick();
    assert.equal(outcome.failed, undefined);
    clock.advance(10); // 250 ms since the start
    await tick();
    const failed = outcome.failed as unknown;
    assert.ok(failed instanceof RequestTimeoutError);
    assert.equal(failed.limit, 'maxTotalTimeoutMs');
    assert.equal(failed.waitedMs, 250);
  });

  test('initialize is never cancelled: a timeout rejects without sending cancelled', async () => {
    const clock = new ManualClock();
    const rec = new Recorder();
    const s = new Peer(rec, undefined, { clock, requestTimeoutMs: 10 });
    const p = s.request('initialize', {});
    clock.advance(10);
    await assert.rejects(p, RequestTimeoutError);
    await tick();
    assert.equal(rec.sent.length, 1);
  });
});

describe('Session cancellation', () => {
  test("the caller's AbortSignal cancels the request, the handler sees it, and no response is sent", async () => {
    const [a, b] = createMemoryPair();
    const client = new Peer(a);
    let handlerSignal!: AbortSignal;
    const started = new Promise<void>((resolve) => {
      new Peer(b, (_req, ctx) => {
        handlerSignal = ctx.signal;
        resolve();
        return new Promise((r) => ctx.signal.addEventListener('abort', () => r({ late: true })));
      });
    });
    const sentByServer: JsonRpcMessage[] = [];
    const send = b.send.bind(b);
    b.send = (m, related) => {
      sentByServer.push(m);
      return send(m, related);
    };
    const controller = new AbortController();
    const p = client.request('slow', {}, { signal: controller.signal });
    await started;
    controller.abort('user gave up');
    await assert.rejects(
      p,
      (e: RequestCancelledError) => e instanceof RequestCancelledError && /user gave up/.test(e.message),
    );
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(handlerSignal.aborted, true);
    assert.equal(sentByServer.length, 0);
  });

  test('the cancellation names the method: on the wire, and in the reason the handler sees', async () => {
    const [a, b] = createMemoryPair();
    const client = new Peer(a);
    const sent: JsonRpcMessage[] = [];
    const send = a.send.bind(a);
    a.send = (m, related) => {
      sent.push(m);
      return send(m, related);
    };
    let handlerSignal!: AbortSignal;
    const started = new Promise<void>((resolve) => {
      new Peer(b, (_req, ctx) => {
        handlerSignal = ctx.signal;
        resolve();
        return new Promise(() => {});
      });
    });
    const controller = new AbortController();
    const p = client.request('tools/call', { name: 'slow' }, { signal: controller.signal });
    await started;
    controller.abort(new Error('the user pressed Ctrl-C'));
    await assert.rejects(p, RequestCancelledError);
    for (let i = 0; i < 100 && !handlerSignal.aborted; i++) await tick();
    const cancel = sent.find((m) => (m as JsonRpcNotification).method === 'notifications/cancelled');
    assert.deepEqual((cancel as JsonRpcNotification).params, {
      requestId: (sent[0] as JsonRpcRequest).id,
      reason: 'tools/call cancelled: the user pressed Ctrl-C',
    });
    const reason = handlerSignal.reason as RequestCancelledError;
    assert.ok(reason instanceof RequestCancelledError);
    assert.equal(reason.method, 'tools/call');
    assert.equal(
      reason.message,
      'Request "tools/call" was cancelled: the peer said "tools/call cancelled: the user pressed Ctrl-C"',
    );
  });

  test('an already aborted signal sends nothing', async () => {
    const rec = new Recorder();
    const s = new Peer(rec);
    await assert.rejects(s.request('x', {}, { signal: AbortSignal.abort() }), RequestCancelledError);
    assert.equal(rec.sent.length, 0);
  });

  test('an incoming cancel for initialize is ignored', async () => {
    const rec = new Recorder();
    let release!: () => void;
    new Peer(rec, () => new Promise((r) => (release = () => r({ ok: true }))));
    rec.receiver.message({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    });
    rec.receiver.message({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 0 } });
    await tick();
    release();
    await tick();
    assert.deepEqual(rec.sent[0].message, { jsonrpc: '2.0', id: 0, result: { ok: true } });
  });

  test('a signal first read after the cancel is already aborted, with the reason', async () => {
    const rec = new Recorder();
    let ctx!: RequestContext;
    let release!: () => void;
    new Peer(rec, (_req, c) => {
      ctx = c;
      return new Promise((r) => (release = () => r({ late: true })));
    });
    rec.receiver.message({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 't' } });
    rec.receiver.message({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 7, reason: 'changed my mind' },
    });
    assert.equal(ctx.signal.aborted, true);
    assert.ok(ctx.signal.reason instanceof RequestCancelledError);
    assert.match(ctx.signal.reason.message, /changed my mind/);
    release();
    await tick();
    assert.equal(rec.sent.length, 0);
  });

  test('a request id stays in use while its handler runs, though the handler never reads its signal', async () => {
    const rec = new Recorder();
    let release!: () => void;
    new Peer(rec, () => new Promise((r) => (release = () => r({ ok: true }))));
    rec.receiver.message({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't' } });
    rec.receiver.message({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't' } });
    await tick();
    assert.equal((rec.sent[0].message as { error: { code: number } }).error.code, ErrorCode.InvalidRequest);
    release();
    await tick();
    assert.deepEqual(rec.sent[1].message, { jsonrpc: '2.0', id: 1, result: { ok: true } });
  });

  test('requests made from a handler are cancelled with it', async () => {
    const rec = new Recorder();
    let inner: Promise<unknown> | undefined;
    new Peer(rec, (_req, ctx) => {
      inner = ctx.request('sampling/createMessage', { messages: [], maxTokens: 1 });
      return new Promise(() => {});
    });
    rec.receiver.message({ jsonrpc: '2.0', id: 'outer', method: 'tools/call', params: { name: 't' } });
    await tick();
    assert.equal(rec.sent[0].related, 'outer');
    rec.receiver.message({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'outer' },
    });
    await assert.rejects(inner!, RequestCancelledError);
  });
});

describe('Session close', () => {
  test('pending requests reject with ConnectionClosedError and in-flight handlers are aborted', async () => {
    let signal!: AbortSignal;
    const { client, server } = pair((_req, ctx) => {
      signal = ctx.signal;
      return new Promise(() => {});
    });
    const p = client.request('forever');
    await new Promise((r) => setTimeout(r, 5));
    await server.close();
    await assert.rejects(p, ConnectionClosedError);
    assert.equal(signal.aborted, true);
    await assert.rejects(client.request('after'), ConnectionClosedError);
  });

  test('a handler that reads its signal only after the close sees it aborted', async () => {
    const rec = new Recorder();
    let ctx!: RequestContext;
    new Peer(rec, (_req, c) => {
      ctx = c;
      return new Promise(() => {});
    });
    rec.receiver.message({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't' } });
    await rec.close();
    assert.equal(ctx.signal.aborted, true);
    assert.ok(ctx.signal.reason instanceof ConnectionClosedError);
  });
});

describe('Session close, whatever the connection does', () => {
  /** A connection whose close is given: it may tell the peer, or not, and may fail. */
  function connection(close: (receiver: Receiver) => Promise<void>): Connection {
    let receiver!: Receiver;
    return {
      start: (r) => {
        receiver = r;
      },
      send: async () => {},
      close: () => close(receiver),
    };
  }

  test('a connection that tells the peer at once: close answers once the connection has closed', async () => {
    let finish!: () => void;
    const closing = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const peer = new Peer(
      connection((receiver) => {
        receiver.closed();
        return closing;
      }),
    );
    const pending = peer.request('x');
    let settled = false;
    const closed = peer.close().then(() => {
      settled = true;
    });
    await assert.rejects(pending, ConnectionClosedError);
    await tick();
    assert.equal(settled, false, 'waits for the connection');
    finish();
    await closed;
  });

  test('a connection that never tells the peer: the peer closes itself once the connection has', async () => {
    const peer = new Peer(connection(async () => {}));
    const pending = peer.request('x');
    await peer.close();
    await assert.rejects(pending, ConnectionClosedError);
    await assert.rejects(peer.request('after'), ConnectionClosedError);
  });

  test('a connection whose close throws: close rejects with its error, and throws nothing', async () => {
    const peer = new Peer(
      connection(() => {
        throw new Error('cannot close');
      }),
    );
    await assert.rejects(peer.close(), /cannot close/);
  });
});

describe('Session restart (the transport reached a fresh peer session)', () => {
  /** A peer whose reinitialization waits until `release` is called. */
  function restartable(rec: Recorder) {
    const state = { reinits: 0, release: undefined as (() => void) | undefined };
    const peer = new Peer(rec, undefined, undefined, () => {
      state.reinits++;
      return new Promise((resolve) => {
        state.release = resolve;
      });
    });
    return { peer, state };
  }

  test('pending requests fail with SessionExpiredError, retry-safe ones are resent, new ones wait', async () => {
    const rec = new Recorder();
    const { peer: s, state } = restartable(rec);
    const lost = s.request('tools/call', { name: 'a' });
    const kept = s.request('tools/list', {}, { retryOnRestart: true });
    assert.equal(rec.sent.length, 2);
    rec.receiver.restarted(new Error('HTTP 404: session not found'));
    await assert.rejects(
      lost,
      (e: Error) => e instanceof SessionExpiredError && /tools\/call.*404/.test(e.message),
    );
    assert.equal(state.reinits, 1);
    const later = s.request('ping');
    await tick();
    assert.equal(rec.sent.length, 2, 'nothing is sent while the session initializes anew');
    state.release!();
    await tick();
    const sent = rec.sent.slice(2).map((x) => x.message as JsonRpcRequest);
    assert.deepEqual(sent.map((m) => m.method).sort(), ['ping', 'tools/list']);
    for (const m of sent) rec.receiver.message({ jsonrpc: '2.0', id: m.id, result: { ok: m.method } });
    assert.deepEqual(await kept, { ok: 'tools/list' });
    assert.deepEqual(await later, { ok: 'ping' });
  });

  test('a request the transport never sent is sent on the new session; answers and notifications are not', async () => {
    const rec = new Recorder();
    const { peer: s, state } = restartable(rec);
    const unsent = s.request('tools/call', { name: 'queued' });
    const lost = s.request('tools/call', { name: 'posted' });
    const [queued] = rec.sent.map((x) => x.message as JsonRpcRequest);
    // An answer to a request of the old session's peer, with the same id as ours, and a notification.
    const answer: JsonRpcMessage = { jsonrpc: '2.0', id: queued.id, result: {} };
    const note: JsonRpcMessage = { jsonrpc: '2.0', method: 'notifications/progress', params: {} };
    rec.receiver.restarted(new Error('reconnected'), [answer, queued, note]);
    await assert.rejects(lost, SessionExpiredError);
    state.release!();
    await tick();
    assert.deepEqual(
      rec.sent.slice(2).map((x) => x.message),
      [queued],
    );
    rec.receiver.message({ jsonrpc: '2.0', id: queued.id, result: { ok: true } });
    assert.deepEqual(await unsent, { ok: true });
  });

  test('a session that cannot initialize anew closes', async () => {
    const rec = new Recorder();
    const s = new Peer(rec);
    const p = s.request('x');
    rec.receiver.restarted(new Error('gone'));
    await assert.rejects(p, SessionExpiredError);
    await tick();
    assert.equal(s.isClosed, true);
  });
});

describe('Session: an invalid answer to a request', () => {
  /** A peer whose request a hand-played peer answers with `answer(id)`: how it ended, what was reported and seen. */
  async function answeredWith(answer: (id: unknown) => unknown) {
    const far = memoryPeer((m) =>
      'method' in m && 'id' in m ? [answer(m.id) as Record<string, unknown>] : [],
    );
    const errors: Error[] = [];
    const peer = new Peer(far.connection);
    peer.onerror = (e) => errors.push(e);
    const outcome = await peer.request('tools/call', { name: 'x' }).then(
      (result) => ({ result }),
      (error: McpError) => ({ error }),
    );
    await tick();
    return { outcome, errors, seen: far.seen };
  }

  for (const [what, answer, problem] of [
    [
      'a result that is not an object',
      (id: unknown) => ({ jsonrpc: '2.0', id, result: 'ok' }),
      '"result" must be an object',
    ],
    [
      'an error with no code',
      (id: unknown) => ({ jsonrpc: '2.0', id, error: { message: 'm' } }),
      '"error" must be an object with an integer "code" and a string "message"',
    ],
    [
      'neither result nor error',
      (id: unknown) => ({ jsonrpc: '2.0', id }),
      'a message needs "method", "result" or "error"',
    ],
    [
      'another jsonrpc version',
      (id: unknown) => ({ jsonrpc: '1.0', id, result: {} }),
      '"jsonrpc" must be "2.0"',
    ],
  ] as const) {
    test(`${what}: the request fails at once with an InvalidResponseError (-32603) saying why, and is not answered`, async () => {
      const { outcome, errors, seen } = await answeredWith(answer);
      assert.ok(
        'error' in outcome && outcome.error instanceof InvalidResponseError,
        'the request failed, typed',
      );
      assert.equal(outcome.error.code, ErrorCode.InternalError);
      assert.equal(outcome.error.problem, problem);
      assert.equal(
        outcome.error.message,
        `The answer to "tools/call" is not a valid JSON-RPC response: ${problem}`,
      );
      assert.equal(outcome.error.method, 'tools/call');
      assert.equal(errors.length, 1, 'the invalid message reported once');
      assert.deepEqual(
        seen.map((m) => m.method),
        ['tools/call'],
        'nothing sent back: no answer to the answer, no cancellation',
      );
    });
  }

  test('an answer in a batch, which 2025-11-25 refuses: the request fails at once saying so', async () => {
    const { outcome, seen } = await answeredWith((id) => [{ jsonrpc: '2.0', id, result: {} }]);
    assert.ok(
      'error' in outcome && outcome.error instanceof InvalidResponseError,
      'the request failed, typed',
    );
    assert.match(
      outcome.error.problem,
      /^it came in a batch: .*not supported in protocol version 2025-11-25/,
    );
    // The batch is refused with one error (id null), as every refused batch is.
    assert.deepEqual(
      seen.map((m) => [m.method, m.id]),
      [
        ['tools/call', 0],
        [undefined, null],
      ],
    );
  });
});
