import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import { MemoryEventStore } from '../../../eventstore/memory-event-store.js';
import {
  ACCEPT_BOTH,
  get,
  openSession,
  parseSse,
  type SSEEventRead,
  serveOn,
} from '../../../test-support/mcp-http.js';
import { Server } from '../../server.js';
import { StreamableHTTPHandler } from '../streamable-http-handler.js';

const EVENTS = 200;
const CHUNK = 'x'.repeat(32 * 1024);

/** A tool that sends EVENTS large notifications at once, far more than a stalled reader can buffer. */
function floodServer(): Server {
  const server = new Server({ name: 'flood', version: '1' });
  server.tool({ name: 'flood', description: 'sends many large notifications' }, async (_args, ctx) => {
    for (let i = 0; i < EVENTS; i++)
      void ctx.notify('notifications/message', { level: 'info', data: { i, CHUNK } });
    return { content: [{ type: 'text', text: 'flooded' }] };
  });
  return server;
}

/**
 * POSTs a tools/call, reads until a few events have arrived, then stops reading for `stallMs`
 * (as a client stuck behind a slow consumer would), then reads what is left until the server ends it.
 */
function stalledPost(url: string, sessionId: string, stallMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'flood' } });
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-session-id': sessionId },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      let stalled = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        if (!stalled && text.split('\n\n').length > 3) {
          stalled = true;
          res.pause();
          setTimeout(() => res.resume(), stallMs);
        }
      });
      const done = () => resolve(text);
      res.on('end', done);
      res.on('error', done);
      res.on('close', done);
    });
    req.end(body);
  });
}

test('a reader that stops reading is dropped past maxBufferedBytes and resumes from the store without loss', async () => {
  const store = new MemoryEventStore({ maxBytes: 64 * 1024 * 1024 });
  const errors: Error[] = [];
  const handler = new StreamableHTTPHandler(floodServer(), {
    eventStore: store,
    maxBufferedBytes: 256 * 1024,
    keepAliveMs: 0,
    onerror: (err) => errors.push(err),
  });
  const served = await serveOn(handler.node());
  try {
    const sessionId = await openSession(served.url);
    const first = await stalledPost(served.url, sessionId, 500);
    // An event cut by the drop is not complete: parse only what precedes the last blank line.
    const before = parseSse(first.slice(0, first.lastIndexOf('\n\n') + 2)).filter((e) => e.id !== undefined);
    const messagesBefore = before.filter((e) => e.data !== '').map((e) => JSON.parse(e.data));
    assert.ok(
      !messagesBefore.some((m) => m.id === 1),
      'the stalled reader was dropped before the result reached it',
    );
    const lastId = before[before.length - 1].id!;

    const resumed = await get(served.url, sessionId, { lastEventId: lastId });
    assert.equal(resumed.status, 200);
    const after: SSEEventRead[] = parseSse(await resumed.text()).filter((e) => e.data !== '');
    const all = [...messagesBefore, ...after.map((e) => JSON.parse(e.data))];
    const logs = all.filter((m) => m.method === 'notifications/message').map((m) => m.params.data.i);
    assert.deepEqual(
      logs,
      Array.from({ length: EVENTS }, (_, i) => i),
      'every notification exactly once, in order',
    );
    assert.deepEqual(all[all.length - 1], {
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'flooded' }] },
    });
  } finally {
    await handler.close({ deadlineMs: 0 });
    await served.close();
  }
});
