import assert from 'node:assert/strict';
import { test } from 'node:test';
import { excerpt, reason, serverMessage } from './http-replies.js';

// What a client's error says of a refusing server's body (both Streamable HTTP clients and the HTTP+SSE one).

test('an error body: its JSON-RPC error message, else its text on one line, else "(empty body)"', () => {
  assert.equal(
    serverMessage('{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: no session"}}'),
    'Bad Request: no session',
  );
  assert.equal(
    serverMessage('<html>\n  <body>\n    <h1>502 Bad Gateway</h1>\n  </body>\n</html>\n'),
    '<html> <body> <h1>502 Bad Gateway</h1> </body> </html>',
  );
  assert.equal(serverMessage(' \r\n\t'), '(empty body)');
});

test('an error body is read no further than its start', async () => {
  let pulled = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++;
      controller.enqueue(new TextEncoder().encode('x'.repeat(512)));
    },
    cancel() {
      cancelled = true;
    },
  });
  const text = await excerpt(new Response(body, { status: 500 }));
  assert.equal(text, `${'x'.repeat(1000)}…`);
  assert.ok(cancelled, 'the rest of an endless body is cancelled');
  assert.ok(pulled <= 4, `read ${pulled} chunks`);
  assert.equal(await excerpt(new Response(null, { status: 502 })), '');
});

test("why a fetch failed: its cause's message after its own, once", () => {
  const refused = new Error('connect ECONNREFUSED 127.0.0.1:1');
  assert.equal(
    reason(new TypeError('fetch failed', { cause: refused })),
    'fetch failed: connect ECONNREFUSED 127.0.0.1:1',
  );
  const told = new Error('The token request to http://a/token failed: no answer within 300 ms', {
    cause: new Error('no answer within 300 ms'),
  });
  assert.equal(reason(told), told.message);
  assert.equal(reason('odd'), 'odd');
});
