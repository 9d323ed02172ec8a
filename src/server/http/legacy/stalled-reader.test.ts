import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import { rawConnect } from '../../../test-support/http-loopback.js';
import { jsonBody, openSession, parseSse, post, toolCall } from '../../../test-support/mcp-http.js';
import { serveTestServer } from '../../../test-support/streamable-fixture.js';
import { within } from '../../../test-support/time-limit.js';
import { RELAY_WAIT_MS } from './relay-order.js';

const CALLS = 8;
const LOGS_PER_CALL = 16;
/** 8 calls × 16 logs × 64 KiB: 8 MiB, far more than loopback's socket buffers hold for a reader that stopped. */
const CHUNK = 'x'.repeat(64 * 1024);

test('JSON-response mode: a client that stops reading its GET stream still gets its answers, each within the bound', async () => {
  // Large enough that the unread stream is never cut: only the bound can release the answers.
  const { server, served } = await serveTestServer({
    jsonResponse: true,
    maxBufferedBytes: 64 * 1024 * 1024,
  });
  server.tool({ name: 'chatty', inputSchema: { type: 'object' } }, async (_args, ctx) => {
    for (let i = 0; i < LOGS_PER_CALL; i++) await ctx.log('info', { i, CHUNK });
    return { content: [{ type: 'text', text: 'done' }] };
  });
  let socket: Socket | undefined;
  try {
    const sessionId = await openSession(served.url);
    const { port } = new URL(served.url);
    socket = await rawConnect(
      Number(port),
      `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\naccept: text/event-stream\r\nmcp-session-id: ${sessionId}\r\n\r\n`,
    );
    // Once the stream is open (its head and priming event read), the client stops reading it while it calls.
    await new Promise<void>((resolve) => {
      let head = '';
      const onData = (chunk: Buffer) => {
        head += chunk.toString('latin1');
        if (!head.includes('\r\n\r\n')) return;
        socket!.off('data', onData);
        socket!.pause();
        resolve();
      };
      socket!.on('data', onData);
    });
    for (let id = 1; id <= CALLS; id++) {
      const answer = await within(
        post(served.url, toolCall(id, 'chatty'), { sessionId }).then(jsonBody),
        // Generous: the bound is RELAY_WAIT_MS; before it existed the answer waited for the reader forever.
        RELAY_WAIT_MS + 9000,
        `the answer to call ${id}`,
      );
      assert.equal(answer.result.content[0].text, 'done');
    }
    // Reading again, the GET stream has every log in order: ordering is kept within the stream.
    const seen: number[] = [];
    let text = '';
    socket.setEncoding('utf8');
    await within(
      new Promise<void>((resolve) => {
        socket!.on('data', (chunk: string) => {
          text += chunk;
          const cut = text.lastIndexOf('\n\n');
          if (cut === -1) return;
          for (const e of parseSse(text.slice(0, cut + 2))) {
            if (e.data === '') continue;
            const m = JSON.parse(e.data);
            if (m.method === 'notifications/message') seen.push(m.params.data.i);
          }
          text = text.slice(cut + 2);
          if (seen.length === CALLS * LOGS_PER_CALL) resolve();
        });
        socket!.resume();
      }),
      30_000,
      'every log on the GET stream',
    );
    const expected = Array.from({ length: CALLS }, () =>
      Array.from({ length: LOGS_PER_CALL }, (_, i) => i),
    ).flat();
    assert.deepEqual(seen, expected);
  } finally {
    socket?.destroy();
    await served.close();
  }
});
