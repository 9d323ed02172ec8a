import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MemoryEventStore } from '../../../eventstore/memory-event-store.js';
import {
  get,
  jsonBody,
  openSession,
  post,
  type Served,
  SSEReader,
  sseMessages,
  toolCall,
} from '../../../test-support/mcp-http.js';
import { type Gates, serveTestServer } from '../../../test-support/streamable-fixture.js';
import type { Server } from '../../server.js';

describe('StreamableHTTPHandler: resumption', () => {
  let served: Served;
  let server: Server;
  let gates: Gates;

  before(async () => {
    ({ served, server, gates } = await serveTestServer({
      eventStore: new MemoryEventStore({ maxBytes: 256 * 1024 * 1024 }),
      retryMs: 250,
    }));
  });
  after(() => served.close());

  test('a 200-event stream cut after each event in turn, resumed with Last-Event-ID: every event once, in order', async () => {
    const sessionId = await openSession(served.url);
    for (let k = 0; k < 200; k++) {
      const controller = new AbortController();
      const res = await post(served.url, toolCall(k, 'burst', { count: 200, every: 20 }), {
        sessionId,
        signal: controller.signal,
      });
      const reader = new SSEReader(res);
      const prime = await reader.next();
      assert.equal(prime?.data, '', 'the priming event comes first');
      assert.equal(prime?.retry, 250);
      let lastId = prime!.id!;
      const seen: unknown[] = [];
      while (seen.length < k) {
        const event = (await reader.nextMessage())!;
        seen.push(event.message.params.data);
        lastId = event.id!;
      }
      controller.abort();
      const resumed = await get(served.url, sessionId, { lastEventId: lastId });
      assert.equal(resumed.status, 200);
      const rest = await sseMessages(resumed);
      const result = rest.pop();
      assert.equal(result.id, k);
      assert.equal(result.result.content[0].text, 'sent 200');
      for (const m of rest) seen.push(m.params.data);
      assert.deepEqual(
        seen,
        Array.from({ length: 200 }, (_, i) => i),
        `cut after ${k} events`,
      );
    }
  });

  test('a resumed stream continues live and ends after its result', async () => {
    const sessionId = await openSession(served.url);
    const controller = new AbortController();
    const res = await post(served.url, toolCall(1, 'wait', { gate: 'resume-live' }), {
      sessionId,
      signal: controller.signal,
    });
    const reader = new SSEReader(res);
    await reader.next();
    const log = await reader.nextMessage();
    assert.equal(log?.message.params.data, 'waiting for resume-live');
    controller.abort();
    const resumed = new SSEReader(await get(served.url, sessionId, { lastEventId: log!.id }));
    gates.open('resume-live');
    const result = await resumed.nextMessage();
    assert.equal(result?.message.id, 1);
    assert.equal(await resumed.next(), undefined, 'the resumed stream ends after the result');
  });

  test("another session's Last-Event-ID is refused with 400, never answered with its events", async () => {
    const a = await openSession(served.url);
    const b = await openSession(served.url);
    const res = await post(served.url, toolCall(1, 'burst', { count: 3 }), { sessionId: a });
    const events = (await res.text()).match(/^id: (.+)$/gm)!;
    const foreign = events[0].slice(4);
    const refused = await get(served.url, b, { lastEventId: foreign });
    assert.equal(refused.status, 400);
    const body = await jsonBody(refused);
    assert.equal(body.error.code, -32000);
    assert.match(body.error.message, /belongs to another session/);
    const malformed = await get(served.url, b, { lastEventId: 'not an id' });
    assert.equal(malformed.status, 400);
    assert.match((await jsonBody(malformed)).error.message, /not an event id this server issued/);
  });

  test('SEP-1699: a handler closes its POST stream early; the client resumes by GET and gets the result', async () => {
    // The conformance scenario sends an older version header on a 2025-11-25 session: priming follows
    // the session's negotiated version.
    const sessionId = await openSession(served.url);
    const res = await post(served.url, toolCall(1, 'poll', { gate: 'poll' }), {
      sessionId,
      headers: { 'mcp-protocol-version': '2025-03-26' },
    });
    const reader = new SSEReader(res);
    const prime = await reader.next();
    assert.equal(prime?.data, '');
    assert.ok(prime?.id);
    assert.equal(prime?.retry, 250);
    const before = await reader.nextMessage();
    assert.equal(before?.message.params.data, 'before close');
    const ending = await reader.next();
    assert.equal(ending?.retry, 250, 'a retry hint before the early end');
    assert.equal(await reader.next(), undefined, 'the POST response ended before the result');

    const resumed = new SSEReader(await get(served.url, sessionId, { lastEventId: before!.id }));
    assert.equal((await resumed.nextMessage())?.message.params.data, 'after close');
    gates.open('poll');
    const result = await resumed.nextMessage();
    assert.equal(result?.message.id, 1);
    assert.equal(result?.message.result.content[0].text, 'polled');
    assert.equal(await resumed.next(), undefined);
  });

  test('sessions negotiated before 2025-11-25 get event ids but no priming event', async () => {
    const sessionId = await openSession(served.url, '2025-06-18');
    const res = await post(served.url, toolCall(1, 'echo', { text: 'x' }), { sessionId });
    const text = await res.text();
    assert.match(text, /^id: \S+_0\ndata: \{"jsonrpc":"2.0","id":1/);
  });

  test('the standalone GET stream resumes with what was sent while the client was away', async () => {
    const sessionId = await openSession(served.url);
    const controller = new AbortController();
    const first = new SSEReader(await get(served.url, sessionId, { signal: controller.signal }));
    const prime = await first.next();
    assert.equal(prime?.data, '');
    controller.abort();
    await new Promise((r) => setTimeout(r, 20));
    const handle = server.tool({ name: 'while-away' }, () => ({ content: [] }));
    await new Promise((r) => setTimeout(r, 20));
    const resumed = new SSEReader(await get(served.url, sessionId, { lastEventId: prime!.id }));
    assert.equal((await resumed.nextMessage())?.message.method, 'notifications/tools/list_changed');
    handle.remove();
    assert.equal((await resumed.nextMessage())?.message.method, 'notifications/tools/list_changed');
    await resumed.cancel();
  });

  test('a second GET takes over the standalone stream; the stale one ends with a retry hint', async () => {
    const sessionId = await openSession(served.url);
    const stale = new SSEReader(await get(served.url, sessionId));
    await stale.next();
    const fresh = new SSEReader(await get(served.url, sessionId));
    assert.equal((await fresh.next())?.data, '');
    assert.equal((await stale.next())?.retry, 250);
    assert.equal(await stale.next(), undefined);
    const handle = server.tool({ name: 'after-takeover' }, () => ({ content: [] }));
    assert.equal((await fresh.nextMessage())?.message.method, 'notifications/tools/list_changed');
    handle.remove();
    await fresh.cancel();
  });
});

test('after a purge, resumption is an explicit 410 error, never a partial replay', async () => {
  const { served } = await serveTestServer({ eventStore: new MemoryEventStore({ maxBytes: 4096 }) });
  try {
    const sessionId = await openSession(served.url);
    const controller = new AbortController();
    const res = await post(served.url, toolCall(1, 'burst', { count: 100 }), {
      sessionId,
      signal: controller.signal,
    });
    const prime = await new SSEReader(res).next();
    controller.abort();
    const resumed = await get(served.url, sessionId, { lastEventId: prime!.id });
    assert.equal(resumed.status, 410);
    const body = await jsonBody(resumed);
    assert.equal(body.error.code, -32000);
    assert.match(body.error.message, /no longer stored/);
  } finally {
    await served.close();
  }
});
