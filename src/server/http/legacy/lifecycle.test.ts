import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryEventStore } from '../../../eventstore/memory-event-store.js';
import { ManualClock } from '../../../test-support/manual-clock.js';
import {
  get,
  jsonBody,
  openSession,
  post,
  SSEReader,
  sseMessages,
  toolCall,
} from '../../../test-support/mcp-http.js';
import { serveTestServer } from '../../../test-support/streamable-fixture.js';
import { StreamUnavailableError } from '../errors.js';
import { IDLE_SWEEP_MS, type StreamableHTTPOptions } from '../handler-options.js';

/** The test server on a manual clock and a memory event store, which the test gets too. */
async function setup(options: StreamableHTTPOptions = {}) {
  const clock = new ManualClock();
  const store = new MemoryEventStore();
  return { clock, store, ...(await serveTestServer({ clock, eventStore: store, ...options })) };
}

test('an idle session is closed after sessionIdleTimeoutMs, never while a request is in flight', async () => {
  const { gates, clock, handler, served, store } = await setup({ sessionIdleTimeoutMs: 1000 });
  try {
    const idle = await openSession(served.url);
    const busy = await openSession(served.url);
    const pending = post(served.url, toolCall(1, 'wait', { gate: 'idle' }), { sessionId: busy });
    const reader = new SSEReader(await pending);
    await reader.nextMessage();
    clock.advance(999);
    assert.equal(handler.sessionCount, 2);
    clock.advance(1);
    assert.equal(handler.sessionCount, 1, 'the idle session is gone');
    const gone = await post(served.url, toolCall(2, 'echo', { text: 'x' }), { sessionId: idle });
    assert.equal(gone.status, 404);
    await gone.text();
    clock.advance(5000);
    assert.equal(handler.sessionCount, 1, 'a session with a request in flight stays');
    gates.open('idle');
    assert.equal((await reader.nextMessage())?.message.id, 1);
    clock.advance(999);
    assert.equal(handler.sessionCount, 1);
    clock.advance(1000);
    assert.equal(handler.sessionCount, 0, 'idle once its request was answered');
    assert.equal(store.bytes, 0);
  } finally {
    await served.close();
  }
});

test('idle sessions share one sweep timer; a long timeout ends a session within one sweep after it', async () => {
  const { clock, handler, served } = await setup({ sessionIdleTimeoutMs: 60_000, keepAliveMs: 0 });
  try {
    await openSession(served.url);
    await openSession(served.url);
    await openSession(served.url);
    assert.equal(clock.pending, 1, 'one timer for all sessions');
    clock.advance(59_999);
    assert.equal(handler.sessionCount, 3);
    clock.advance(IDLE_SWEEP_MS);
    assert.equal(handler.sessionCount, 0);
    assert.equal(clock.pending, 0, 'the sweep stops once no session is left');
  } finally {
    await served.close();
  }
});

test('DELETE frees everything: session count, server sessions and event-store bytes back to 0', async () => {
  const { server, handler, served, store } = await setup();
  try {
    const sessionId = await openSession(served.url);
    const res = await post(served.url, toolCall(1, 'burst', { count: 20 }), { sessionId });
    assert.equal((await sseMessages(res)).length, 21);
    const stream = new SSEReader(await get(served.url, sessionId));
    await stream.next();
    assert.ok(store.bytes > 0);
    const del = await fetch(served.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    assert.equal(del.status, 204);
    assert.equal(await stream.next(), undefined, 'the GET stream ends with the session');
    assert.equal(handler.sessionCount, 0);
    assert.equal(server.sessions.size, 0);
    assert.equal(store.bytes, 0);
    assert.equal(store.sessionCount, 0);
  } finally {
    await served.close();
  }
});

test('refused requests leave no session and nothing in the event store', async () => {
  const { server, handler, served, store } = await setup();
  try {
    const bad = await post(served.url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { capabilities: 3 },
    });
    await bad.text();
    const wrongAccept = await post(
      served.url,
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} },
      { headers: { accept: 'text/html' } },
    );
    assert.equal(wrongAccept.status, 406);
    await wrongAccept.text();
    assert.equal(handler.sessionCount, 0);
    assert.equal(server.sessions.size, 0);
    assert.equal(store.bytes, 0);
  } finally {
    await served.close();
  }
});

test('during shutdown a DELETE is served, not refused: 204 while the session lasts, then 404', async () => {
  const { gates, handler, served } = await setup();
  try {
    const held = await openSession(served.url);
    const busy = await openSession(served.url);
    const work = new SSEReader(
      await post(served.url, toolCall(1, 'wait', { gate: 'delete' }), { sessionId: busy }),
    );
    await work.nextMessage();
    const closing = handler.close({ deadlineMs: 5000 });
    const del = (sessionId: string) =>
      fetch(served.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    const deleted = await del(held);
    assert.equal(deleted.status, 204);
    gates.open('delete');
    await work.nextMessage();
    await closing;
    const gone = await del(busy);
    assert.equal(gone.status, 404);
    await gone.text();
  } finally {
    await served.close();
  }
});

test('graceful shutdown: 503 for new requests, in-flight ones finish, streams end with a retry hint', async () => {
  const { gates, clock, handler, served, store } = await setup({ retryMs: 300 });
  try {
    const sessionId = await openSession(served.url);
    const stream = new SSEReader(await get(served.url, sessionId));
    await stream.next();
    const work = new SSEReader(
      await post(served.url, toolCall(1, 'wait', { gate: 'shutdown' }), { sessionId }),
    );
    await work.nextMessage();
    const closing = handler.close({ deadlineMs: 5000 });
    const refused = await post(served.url, toolCall(2, 'echo', { text: 'x' }), { sessionId });
    assert.equal(refused.status, 503);
    assert.match((await jsonBody(refused)).error.message, /shutting down/);
    gates.open('shutdown');
    assert.equal((await work.nextMessage())?.message.id, 1, 'the request in flight finished');
    await closing;
    assert.equal((await stream.next())?.retry, 300);
    assert.equal(await stream.next(), undefined);
    assert.equal(handler.sessionCount, 0);
    assert.equal(store.bytes, 0);
    assert.equal(clock.pending, 0, 'no timer left behind');
  } finally {
    await served.close();
  }
});

test('graceful shutdown past the deadline answers what is still owed with an error', async () => {
  let started!: () => void;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  // In JSON-response mode with no GET stream, the tool's first log is dropped and reported: it is running.
  const { clock, handler, served } = await setup({
    jsonResponse: true,
    onerror: (e) => {
      if (e instanceof StreamUnavailableError) started();
    },
  });
  try {
    const sessionId = await openSession(served.url);
    const pending = post(served.url, toolCall(7, 'wait', { gate: 'never' }), { sessionId });
    await running;
    const closing = handler.close({ deadlineMs: 1000 });
    clock.advance(1000);
    await closing;
    const res = await pending;
    assert.equal(res.status, 503);
    const body = await jsonBody(res);
    assert.equal(body.id, 7);
    assert.match(body.error.message, /shut down before the request completed/);
  } finally {
    await served.close();
  }
});
