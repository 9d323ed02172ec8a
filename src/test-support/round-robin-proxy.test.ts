// The multi-process tests lean on this proxy to spread one client's requests over several servers and to
// carry SSE streams as they come: these tests hold it to that.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, test } from 'node:test';
import { type LoopbackServer, listenLoopback, readBody } from './http-loopback.js';
import { BACKEND_HEADER, type RoundRobinProxy, startRoundRobinProxy } from './round-robin-proxy.js';
import { until } from './time-limit.js';

const opened: Array<LoopbackServer | RoundRobinProxy> = [];
after(async () => {
  await Promise.all(opened.map((s) => s.close()));
});

async function backend(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; server: LoopbackServer }> {
  const server = await listenLoopback(handler);
  opened.push(server);
  return { url: `http://127.0.0.1:${server.port}`, server };
}

async function proxy(backends: string[]): Promise<RoundRobinProxy> {
  const p = await startRoundRobinProxy(backends);
  opened.push(p);
  return p;
}

/** A backend that answers `name method path body`. */
function named(name: string) {
  return backend(async (req, res) => {
    res.end(`${name} ${req.method} ${req.url} ${await readBody(req)}`);
  });
}

test('alternates backends per request, with no affinity, keeping method, path and body', {
  timeout: 5000,
}, async () => {
  const a = await named('a');
  const b = await named('b');
  const p = await proxy([a.url, b.url]);
  const answers: string[] = [];
  const backends: string[] = [];
  // One keep-alive client: a balancer with affinity would send all of these to one backend.
  for (let i = 0; i < 4; i++) {
    const response = await fetch(`${p.url}/mcp?i=${i}`, { method: 'POST', body: `n${i}` });
    answers.push(await response.text());
    backends.push(response.headers.get(BACKEND_HEADER) ?? '');
  }
  assert.deepEqual(answers, [
    'a POST /mcp?i=0 n0',
    'b POST /mcp?i=1 n1',
    'a POST /mcp?i=2 n2',
    'b POST /mcp?i=3 n3',
  ]);
  assert.deepEqual(backends, [a.url, b.url, a.url, b.url]);
  assert.equal(p.served.get(a.url), 2);
  assert.equal(p.served.get(b.url), 2);
});

test('setBackends changes the rotation for the requests that follow', { timeout: 5000 }, async () => {
  const a = await named('a');
  const b = await named('b');
  const p = await proxy([a.url, b.url]);
  p.setBackends([b.url]);
  const texts = await Promise.all([0, 1, 2].map(async () => (await fetch(p.url)).text()));
  assert.deepEqual(texts, ['b GET / ', 'b GET / ', 'b GET / ']);
  assert.throws(() => p.setBackends([]), /at least one backend/);
});

test('an SSE answer streams through event by event, before the backend ends it', {
  timeout: 5000,
}, async () => {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const a = await backend((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('id: 1\ndata: first\n\n');
    released.then(() => res.end('id: 2\ndata: second\n\n'));
  });
  const p = await proxy([a.url]);
  const response = await fetch(p.url);
  assert.equal(response.headers.get('content-type'), 'text/event-stream');
  const reader = response.body!.getReader();
  const first = await reader.read();
  // The backend has not ended the stream: the first event came through on its own.
  assert.equal(new TextDecoder().decode(first.value), 'id: 1\ndata: first\n\n');
  release();
  let rest = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    rest += new TextDecoder().decode(value);
  }
  assert.equal(rest, 'id: 2\ndata: second\n\n');
});

test('a client that goes away cuts the backend request', { timeout: 5000 }, async () => {
  let backendClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    backendClosed = resolve;
  });
  const a = await backend((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': open\n\n');
    res.on('close', () => backendClosed());
  });
  const p = await proxy([a.url]);
  const controller = new AbortController();
  const response = await fetch(p.url, { signal: controller.signal });
  const reader = response.body!.getReader();
  await reader.read();
  controller.abort();
  await closed;
});

test('a backend that dies mid-answer cuts the client, which sees an error, not a clean end', {
  timeout: 5000,
}, async () => {
  const a = await backend((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('id: 1\ndata: first\n\n', () => setTimeout(() => res.socket?.destroy(), 20));
  });
  const p = await proxy([a.url]);
  const response = await fetch(p.url);
  const reader = response.body!.getReader();
  await reader.read();
  await assert.rejects(async () => {
    for (;;) if ((await reader.read()).done) return;
  });
});

test('a backend that cannot be reached answers 502 with a JSON-RPC error', { timeout: 5000 }, async () => {
  const a = await named('a');
  await a.server.close();
  const p = await proxy([a.url]);
  const response = await fetch(p.url, { method: 'POST', body: '{}' });
  assert.equal(response.status, 502);
  assert.equal(response.headers.get(BACKEND_HEADER), a.url);
  const body = (await response.json()) as { jsonrpc: string; error: { code: number; message: string } };
  assert.equal(body.jsonrpc, '2.0');
  assert.match(body.error.message, /^Bad Gateway: backend http:\/\/127\.0\.0\.1:\d+ failed/);
});

test('cut breaks off the exchanges under way with one backend, on both sides, and no others', {
  timeout: 5000,
}, async () => {
  const backendClosed: string[] = [];
  const streaming = (name: string) =>
    backend((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': open\n\n');
      res.on('close', () => backendClosed.push(name));
    });
  const a = await streaming('a');
  const b = await streaming('b');
  const p = await proxy([a.url, b.url]);
  const readers = await Promise.all(
    [0, 1].map(async () => {
      const reader = (await fetch(p.url)).body!.getReader();
      await reader.read();
      return reader;
    }),
  );
  assert.equal(p.cut(`${a.url}/`), 1);
  await assert.rejects(async () => {
    for (;;) if ((await readers[0].read()).done) return;
  });
  await until(() => backendClosed.length > 0, 2000, 'the backend to see its client go');
  assert.deepEqual(backendClosed, ['a']);
  await readers[1].cancel();
});
