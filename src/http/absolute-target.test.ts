import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { StreamableHTTPHandler } from '../server/http/streamable-http-handler.js';
import { Server } from '../server/server.js';
import { LegacySSEHandler } from '../server/sse/legacy-sse-handler.js';
import { listenLoopback, rawConnect, readAll } from '../test-support/http-loopback.js';
import { initializeRequest } from '../test-support/mcp-http.js';
import { writeJsonError } from './json-error.js';
import { fromNode } from './node-adapter.js';

/** Routes by `exchange.path` as `mcpwire serve` does: /mcp to Streamable HTTP, /sse and /messages to HTTP+SSE. */
async function serveBoth() {
  const server = new Server({ name: 'absolute', version: '1' });
  const streamable = new StreamableHTTPHandler(server);
  const legacy = new LegacySSEHandler(server);
  const paths: string[] = [];
  const http = await listenLoopback((req, res) => {
    const exchange = fromNode(req, res);
    paths.push(exchange.path);
    if (exchange.path === '/mcp') {
      streamable.handle(exchange);
      return;
    }
    legacy.handle(exchange).then((served) => {
      if (!served) writeJsonError(exchange, 404, 'Not Found');
    });
  });
  return {
    port: http.port,
    paths,
    close: async () => {
      await Promise.all([streamable.close({ deadlineMs: 0 }), legacy.close()]);
      await http.close();
    },
  };
}

/** One request written by hand on a raw socket; resolves with what the server sent once `done` holds. */
async function raw(port: number, head: string, body = '', done?: (text: string) => boolean): Promise<string> {
  const socket = await rawConnect(port, head + body);
  const text = await readAll(socket, done);
  socket.destroy();
  return text;
}

const INIT = JSON.stringify(initializeRequest(1));

function postHead(target: string, host: string): string {
  return (
    `POST ${target} HTTP/1.1\r\nHost: ${host}\r\ncontent-type: application/json\r\n` +
    `accept: application/json, text/event-stream\r\ncontent-length: ${Buffer.byteLength(INIT)}\r\n` +
    'connection: close\r\n\r\n'
  );
}

const hasEndpoint = (text: string) =>
  text.includes('event: endpoint') && text.includes('\n\n', text.indexOf('event: endpoint'));

describe('an absolute-form request target (RFC 9112 §3.2.2)', () => {
  test('POST http://127.0.0.1:PORT/mcp is served like POST /mcp', async () => {
    const s = await serveBoth();
    try {
      const text = await raw(s.port, postHead(`http://127.0.0.1:${s.port}/mcp`, `127.0.0.1:${s.port}`), INIT);
      assert.match(text, /^HTTP\/1\.1 200 /);
      assert.match(text, /mcp-session-id: /i);
      assert.match(text, /"protocolVersion":"2025-11-25"/);
      assert.deepEqual(s.paths, ['/mcp']);
    } finally {
      await s.close();
    }
  });

  test('GET http://127.0.0.1:PORT/sse opens the HTTP+SSE stream like GET /sse', async () => {
    const s = await serveBoth();
    try {
      const head = `GET HTTP://127.0.0.1:${s.port}/sse HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\naccept: text/event-stream\r\n\r\n`;
      const text = await raw(s.port, head, '', hasEndpoint);
      assert.match(text, /^HTTP\/1\.1 200 /);
      assert.match(text, /event: endpoint\ndata: \/messages\?sessionId=/);
    } finally {
      await s.close();
    }
  });

  test("the target's authority stands for Host: a disallowed one gets 421 whatever Host says", async () => {
    const s = await serveBoth();
    try {
      const mcp = await raw(s.port, postHead('http://evil.example:80/mcp', `127.0.0.1:${s.port}`), INIT);
      assert.match(mcp, /^HTTP\/1\.1 421 /);
      assert.match(mcp, /request target's authority \\"evil\.example:80\\" is not allowed/);
      const sse = await raw(
        s.port,
        `GET http://evil.example/sse HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\naccept: text/event-stream\r\nconnection: close\r\n\r\n`,
      );
      assert.match(sse, /^HTTP\/1\.1 421 /);
      assert.match(sse, /request target's authority \\"evil\.example\\" is not allowed/);
    } finally {
      await s.close();
    }
  });

  test('with an allowed authority the Host header is ignored, as the RFC requires', async () => {
    const s = await serveBoth();
    try {
      const text = await raw(s.port, postHead(`http://localhost:${s.port}/mcp`, 'evil.example'), INIT);
      assert.match(text, /^HTTP\/1\.1 200 /);
    } finally {
      await s.close();
    }
  });

  test('an empty path is /, and the query is kept', async () => {
    const seen: { path: string; query: string; authority: string | undefined }[] = [];
    const http = await listenLoopback((req, res) => {
      const exchange = fromNode(req, res);
      seen.push({ path: exchange.path, query: exchange.query.toString(), authority: exchange.authority });
      exchange.writeHead(204);
      exchange.end();
    });
    try {
      for (const target of ['http://127.0.0.1?x=1', 'https://[::1]:8443/a/b?y=2', '/plain?z=3']) {
        await raw(http.port, `GET ${target} HTTP/1.1\r\nHost: h\r\nconnection: close\r\n\r\n`);
      }
      assert.deepEqual(seen, [
        { path: '/', query: 'x=1', authority: '127.0.0.1' },
        { path: '/a/b', query: 'y=2', authority: '[::1]:8443' },
        { path: '/plain', query: 'z=3', authority: undefined },
      ]);
    } finally {
      await http.close();
    }
  });
});
