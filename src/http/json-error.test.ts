import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeJsonError } from './json-error.js';
import { fromWeb } from './web-adapter.js';

test('a rejection is a JSON-RPC error response with the HTTP status and Content-Type application/json', async () => {
  const { exchange, response } = fromWeb(new Request('http://localhost/mcp', { method: 'POST' }));
  writeJsonError(exchange, 403, 'Forbidden: Origin "http://evil.example" is not allowed');
  const r = await response;
  assert.equal(r.status, 403);
  assert.equal(r.headers.get('content-type'), 'application/json');
  assert.deepEqual(await r.json(), {
    jsonrpc: '2.0',
    id: null,
    error: { code: -32000, message: 'Forbidden: Origin "http://evil.example" is not allowed' },
  });
});

test('code, id and extra headers can be given; Content-Type stays application/json', async () => {
  const { exchange, response } = fromWeb(new Request('http://localhost/mcp', { method: 'PUT' }));
  writeJsonError(exchange, 405, 'Method Not Allowed', {
    code: -32600,
    id: 7,
    headers: { allow: 'GET, POST, DELETE', 'content-type': 'text/plain' },
  });
  const r = await response;
  assert.equal(r.status, 405);
  assert.equal(r.headers.get('allow'), 'GET, POST, DELETE');
  assert.equal(r.headers.get('content-type'), 'application/json');
  assert.deepEqual(await r.json(), {
    jsonrpc: '2.0',
    id: 7,
    error: { code: -32600, message: 'Method Not Allowed' },
  });
});

test('once a stream has begun the status cannot change: the response is just ended', async () => {
  const { exchange, response } = fromWeb(new Request('http://localhost/mcp'));
  exchange.writeHead(200, { 'content-type': 'text/event-stream' });
  exchange.write('data: 1\n\n');
  writeJsonError(exchange, 500, 'too late');
  assert.equal(exchange.closed, true);
  const r = await response;
  assert.equal(r.status, 200);
  assert.equal(await r.text(), 'data: 1\n\n');
});
