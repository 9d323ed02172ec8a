import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../../test-support/manual-clock.js';
import {
  get,
  initializeRequest,
  jsonBody,
  openSession,
  post,
  postFrom,
  SSEReader,
  toolCall,
} from '../../../test-support/mcp-http.js';
import { serveTestServer } from '../../../test-support/streamable-fixture.js';
import type { StreamableHTTPOptions } from '../handler-options.js';
import { ACTIVITY_ORDER_STEP_MS } from './session-table.js';

async function setup(options: StreamableHTTPOptions = {}) {
  const clock = new ManualClock();
  return { clock, ...(await serveTestServer({ clock, keepAliveMs: 0, ...options })) };
}

/** An initialize answered, never followed by anything: what a flood of handshakes leaves behind. */
async function unfinishedSession(url: string): Promise<string> {
  const res = await post(url, initializeRequest(1));
  assert.equal(res.status, 200);
  await res.text();
  return res.headers.get('mcp-session-id')!;
}

/** The status of an echo call in the session, its body read. */
async function echoStatus(url: string, sessionId: string, id = 7): Promise<number> {
  const res = await post(url, toolCall(id, 'echo', { text: 'x' }), { sessionId });
  await res.text();
  return res.status;
}

test('the cap is no lockout: initializes never finished fill it, and a new client still gets a session', async () => {
  const { handler, served } = await setup({ maxSessions: 50 });
  try {
    for (let i = 0; i < 50; i++) await unfinishedSession(served.url);
    assert.equal(handler.sessionCount, 50);
    const sessionId = await openSession(served.url);
    assert.equal(await echoStatus(served.url, sessionId), 200);
    assert.equal(handler.sessionCount, 50, 'one unfinished session made room');
  } finally {
    await served.close();
  }
});

test('a session whose client sends nothing after initialize ends after initializeTimeoutMs; one that spoke stays', async () => {
  const { clock, handler, served } = await setup({ initializeTimeoutMs: 2000 });
  try {
    const silent = await unfinishedSession(served.url);
    const finished = await openSession(served.url);
    // A client that calls without notifications/initialized has spoken: it is not taken for a flood.
    const sloppy = await unfinishedSession(served.url);
    assert.equal(await echoStatus(served.url, sloppy), 200);
    clock.advance(1999);
    assert.equal(handler.sessionCount, 3);
    clock.advance(1);
    assert.equal(handler.sessionCount, 2);
    const gone = await post(served.url, toolCall(1, 'echo', { text: 'x' }), { sessionId: silent });
    assert.equal(gone.status, 404);
    assert.match((await jsonBody(gone)).error.message, /^Not Found: the session does not exist or has ended/);
    assert.equal(await echoStatus(served.url, finished), 200);
    assert.equal(await echoStatus(served.url, sloppy, 8), 200);
  } finally {
    await served.close();
  }
});

test('a silent session holding its GET stream is not ended for silence', async () => {
  const { clock, handler, served } = await setup({ initializeTimeoutMs: 2000 });
  try {
    const sessionId = await unfinishedSession(served.url);
    const stream = new SSEReader(await get(served.url, sessionId));
    await stream.next();
    clock.advance(10_000);
    assert.equal(handler.sessionCount, 1);
    await stream.cancel();
  } finally {
    await served.close();
  }
});

test('at the cap the least recently active idle session makes room; busy ones stay; all busy: 503', async () => {
  const { clock, gates, handler, served } = await setup({ maxSessions: 3, initializeTimeoutMs: 0 });
  try {
    const older = await openSession(served.url);
    clock.advance(ACTIVITY_ORDER_STEP_MS);
    const lru = await openSession(served.url);
    clock.advance(ACTIVITY_ORDER_STEP_MS);
    const streaming = await openSession(served.url);
    const stream = new SSEReader(await get(served.url, streaming));
    await stream.next();
    clock.advance(ACTIVITY_ORDER_STEP_MS);
    // `older` is active again: `lru` is now the least recently active idle session.
    assert.equal(await echoStatus(served.url, older), 200);

    const newcomer = await openSession(served.url);
    assert.equal(handler.sessionCount, 3);
    assert.equal(
      await echoStatus(served.url, lru),
      404,
      'the evicted session is gone: its client initializes again',
    );
    assert.equal(await echoStatus(served.url, older), 200);
    assert.equal(await echoStatus(served.url, newcomer), 200);

    // Every session busy (a stream held, requests in flight): nobody is evicted and the newcomer hears why.
    const calls = [older, newcomer].map((sessionId, i) =>
      post(served.url, toolCall(10 + i, 'wait', { gate: 'hold' }), { sessionId }),
    );
    const readers = await Promise.all(calls.map(async (call) => new SSEReader(await call)));
    for (const reader of readers) await reader.nextMessage();
    const refused = await post(served.url, initializeRequest(1));
    assert.equal(refused.status, 503);
    assert.match(
      (await jsonBody(refused)).error.message,
      /^Service Unavailable: the server holds its maximum of 3 sessions, each with a request in flight or a stream open; retry later$/,
    );
    assert.equal(handler.sessionCount, 3);
    gates.open('hold');
    for (const reader of readers)
      assert.equal((await reader.nextMessage())?.message.result.content[0].text, 'opened hold');
    await stream.cancel();
  } finally {
    await served.close();
  }
});

test('at the cap a session that never spoke after initialize goes before an older, finished one', async () => {
  const { clock, handler, served } = await setup({ maxSessions: 2 });
  try {
    const finished = await openSession(served.url);
    clock.advance(ACTIVITY_ORDER_STEP_MS);
    const silent = await unfinishedSession(served.url);
    await openSession(served.url);
    assert.equal(handler.sessionCount, 2);
    assert.equal(await echoStatus(served.url, finished), 200);
    assert.equal(await echoStatus(served.url, silent), 404);
  } finally {
    await served.close();
  }
});

test("at the cap, a flood from one address evicts its own sessions, not another client's", async () => {
  const { handler, served } = await setup({ maxSessions: 5 });
  try {
    // A client elsewhere opens its session first, then sits quietly: the least recently active of all.
    const opened = await postFrom('127.0.0.2', served.url, initializeRequest(1));
    assert.equal(opened.status, 200);
    const theirs = opened.sessionId!;
    const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
    assert.equal(
      (await postFrom('127.0.0.2', served.url, initialized, { 'mcp-session-id': theirs })).status,
      202,
    );
    // Twenty sessions from this address, each finished and then silent: four fit, then each makes its own room.
    const flood: string[] = [];
    for (let i = 0; i < 20; i++) flood.push(await openSession(served.url));
    assert.equal(handler.sessionCount, 5);
    assert.equal(
      (
        await postFrom('127.0.0.2', served.url, toolCall(2, 'echo', { text: 'x' }), {
          'mcp-session-id': theirs,
        })
      ).status,
      200,
    );
    // The flood's newest sessions are the ones left; its oldest made room.
    assert.equal(await echoStatus(served.url, flood.at(-1)!), 200);
    assert.equal(await echoStatus(served.url, flood[0]!), 404);
  } finally {
    await served.close();
  }
});
