import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, test } from 'node:test';
import { listenLoopback, rawConnect, rawRequest, readAll } from '../test-support/http-loopback.js';
import { BodyTooLargeError, type HTTPExchange } from './exchange.js';
import { writeJsonError } from './json-error.js';
import { fromNode } from './node-adapter.js';

/** A server whose handler reads the body with `limit` and reports what readBody did. */
async function bodyServer(limit: number) {
  const outcomes: { body?: string; error?: unknown }[] = [];
  const server = await listenLoopback((req, res) => {
    const ex = fromNode(req, res);
    ex.readBody(
      limit,
      (body) => {
        outcomes.push({ body });
        ex.writeHead(200, { 'content-type': 'text/plain' });
        ex.end(body);
      },
      (error) => {
        outcomes.push({ error });
        writeJsonError(ex, error instanceof BodyTooLargeError ? error.status : 400, (error as Error).message);
      },
    );
  });
  return { server, outcomes };
}

/**
 * A server that turns its request into an open event stream: `prepare` runs on the exchange, then the head is
 * flushed. `open()` connects a raw client that GETs it and resolves once the server has flushed the head.
 */
async function streamServer(prepare: (ex: HTTPExchange) => void = () => {}) {
  let opened!: (ex: HTTPExchange) => void;
  const streaming = new Promise<HTTPExchange>((resolve) => {
    opened = resolve;
  });
  const server = await listenLoopback((req, res) => {
    const ex = fromNode(req, res);
    prepare(ex);
    ex.flushHeaders();
    opened(ex);
  });
  const open = async () => {
    const socket = await rawConnect(server.port, 'GET /mcp HTTP/1.1\r\nHost: x\r\n\r\n');
    return { socket, ex: await streaming };
  };
  return { server, open };
}

const SSE_HEAD = { 'content-type': 'text/event-stream' };

describe('fromNode: request', () => {
  test('method, target, path, query, headers by lower-case name, remote address', async () => {
    let seen: Record<string, unknown> = {};
    const server = await listenLoopback((req, res) => {
      const ex = fromNode(req, res);
      seen = {
        method: ex.method,
        target: ex.target,
        path: ex.path,
        sessionId: ex.query.get('sessionId'),
        custom: ex.header('x-custom'),
        missing: ex.header('x-missing'),
        remote: ex.remoteAddress,
      };
      ex.end();
    });
    try {
      const r = await new Promise<number>((resolve) => {
        const headers = { 'X-Custom': 'yes' };
        request(
          { port: server.port, host: '127.0.0.1', path: '/messages?sessionId=a%20b', headers },
          (res) => {
            res.resume();
            resolve(res.statusCode!);
          },
        ).end();
      });
      assert.equal(r, 200);
      assert.deepEqual(seen, {
        method: 'GET',
        target: '/messages?sessionId=a%20b',
        path: '/messages',
        sessionId: 'a b',
        custom: 'yes',
        missing: undefined,
        remote: '127.0.0.1',
      });
    } finally {
      await server.close();
    }
  });

  test('headers: all of them by lower-case name, repeats joined; built once, frozen', async () => {
    let seen: Readonly<Record<string, string>> | undefined;
    let same = false;
    const server = await listenLoopback((req, res) => {
      const ex = fromNode(req, res);
      seen = ex.headers;
      same = ex.headers === seen;
      ex.end();
    });
    try {
      const socket = await rawConnect(
        server.port,
        'GET /mcp HTTP/1.1\r\nHost: x\r\nX-Custom: yes\r\nX-Multi: a\r\nX-Multi: b\r\nConnection: close\r\n\r\n',
      );
      await readAll(socket);
      assert.deepEqual({ ...seen }, { host: 'x', 'x-custom': 'yes', 'x-multi': 'a, b', connection: 'close' });
      assert.equal(seen!.constructor, undefined, 'no inherited names');
      assert.ok(same);
      assert.ok(Object.isFrozen(seen));
    } finally {
      await server.close();
    }
  });

  test('a body exactly at the limit is read whole, multi-byte characters intact', async () => {
    const { server, outcomes } = await bodyServer(7);
    try {
      const r = await rawRequest(server.port, 'POST', {}, 'h€llo'); // 7 bytes
      assert.equal(r.status, 200);
      assert.equal(r.body, 'h€llo');
      assert.deepEqual(outcomes, [{ body: 'h€llo' }]);
    } finally {
      await server.close();
    }
  });

  test('a multi-byte character split across two chunks decodes correctly', async () => {
    const { server, outcomes } = await bodyServer(100);
    try {
      const euro = Buffer.from('€');
      const socket = await rawConnect(
        server.port,
        Buffer.concat([
          Buffer.from(
            'POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n',
          ),
          Buffer.from('2\r\n'),
          euro.subarray(0, 2),
          Buffer.from('\r\n1\r\n'),
          euro.subarray(2),
          Buffer.from('\r\n0\r\n\r\n'),
        ]),
      );
      await readAll(socket);
      assert.deepEqual(outcomes, [{ body: '€' }]);
    } finally {
      await server.close();
    }
  });

  test('a chunked body is counted as it arrives: past the limit, BodyTooLargeError and a 413', async () => {
    const { server, outcomes } = await bodyServer(1000);
    try {
      const chunk = 'x'.repeat(600);
      const socket = await rawConnect(
        server.port,
        'POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n' +
          `258\r\n${chunk}\r\n258\r\n${chunk}\r\n`,
      );
      // The body never ends: the server must answer without waiting for the rest.
      const text = await readAll(socket, (seen) => seen.endsWith('}}'));
      // The server reads on (the rest, if any, is dropped) until the client stops: then it closes.
      const closed = new Promise((resolve) => socket.once('close', resolve));
      socket.end();
      await closed;
      assert.equal(outcomes.length, 1);
      assert.ok(outcomes[0].error instanceof BodyTooLargeError);
      assert.match(text, /^HTTP\/1\.1 413 /);
      assert.match(text, /connection: close/i);
      assert.match(text, /Payload Too Large: the request body exceeds the limit of 1000 bytes/);
    } finally {
      await server.close();
    }
  });

  test('a Content-Length above the limit is refused before any byte of the body is read', async () => {
    const { server, outcomes } = await bodyServer(1000);
    try {
      // Announces 10 MB and sends nothing: a 413 that waited for the body would never come.
      const socket = await rawConnect(
        server.port,
        'POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n',
      );
      const text = await readAll(socket, (seen) => seen.endsWith('}}'));
      assert.match(text, /^HTTP\/1\.1 413 /);
      assert.match(text, /connection: close/i);
      assert.ok(outcomes[0].error instanceof BodyTooLargeError);
      socket.destroy();
    } finally {
      await server.close();
    }
  });

  test('a Content-Length smaller than the bytes sent cannot smuggle the extra bytes into the body', async () => {
    const { server, outcomes } = await bodyServer(100);
    try {
      const socket = await rawConnect(
        server.port,
        `POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n${'y'.repeat(1000)}`,
      );
      await readAll(socket);
      assert.deepEqual(outcomes[0], { body: 'yyyyy' });
    } finally {
      await server.close();
    }
  });
});

describe('fromNode: response', () => {
  test('a body given to end goes out with its Content-Length, in one piece, not chunked', async () => {
    const server = await listenLoopback((req, res) => {
      const ex = fromNode(req, res);
      ex.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'abc' });
      assert.equal(ex.headWritten, true);
      ex.end('{"ok":"é"}');
      assert.equal(ex.closed, true);
    });
    try {
      const r = await rawRequest(server.port, 'POST', {}, '');
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-length'], String(Buffer.byteLength('{"ok":"é"}')));
      assert.equal(r.headers['transfer-encoding'], undefined);
      assert.equal(r.headers['mcp-session-id'], 'abc');
      assert.equal(r.body, '{"ok":"é"}');
    } finally {
      await server.close();
    }
  });

  test('the head: headers from writeHead, setResponseHeader and the node response itself all go out once', async () => {
    const server = await listenLoopback((req, res) => {
      const framework = req.headers['x-framework'] !== undefined;
      if (framework) res.setHeader('x-powered-by', 'a framework'); // as express does before any route runs
      const ex = fromNode(req, res);
      if (framework) ex.setResponseHeader('access-control-allow-origin', 'https://app.example');
      // A caller's constant: the adapter must not write Content-Length into it.
      ex.writeHead(200, Object.freeze({ 'content-type': 'application/json' }));
      ex.setResponseHeader('vary', 'origin');
      ex.writeHead(200, { 'x-set': 'by writeHead', 'x-reset': 'by writeHead' });
      // One header each, the last value set, whatever the case of its name.
      ex.setResponseHeader('X-Reset', 'by setResponseHeader');
      ex.end('{}');
      ex.setResponseHeader('x-late', 'ignored');
    });
    try {
      const plain = await rawRequest(server.port, 'POST', {}, '');
      assert.equal(plain.headers['content-length'], '2');
      assert.equal(plain.headers['access-control-allow-origin'], undefined);
      assert.equal(plain.headers['x-reset'], 'by setResponseHeader');
      const r = await rawRequest(server.port, 'POST', { 'x-framework': '1' }, '');
      assert.equal(r.status, 200);
      assert.equal(r.headers['x-powered-by'], 'a framework');
      assert.equal(r.headers['access-control-allow-origin'], 'https://app.example');
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.headers.vary, 'origin');
      assert.equal(r.headers['x-set'], 'by writeHead');
      assert.equal(r.headers['x-reset'], 'by setResponseHeader');
      assert.equal(r.headers['content-length'], '2');
      assert.equal(r.headers['x-late'], undefined);
      assert.equal(r.body, '{}');
    } finally {
      await server.close();
    }
  });

  test('an empty answer says Content-Length 0 (202), or nothing when its status has no body (204, 304)', async () => {
    const server = await listenLoopback((req, res) => {
      const ex = fromNode(req, res);
      ex.writeHead(Number(req.headers['x-status']));
      ex.end();
    });
    try {
      const accepted = await rawRequest(server.port, 'POST', { 'x-status': '202' }, '');
      assert.equal(accepted.status, 202);
      assert.equal(accepted.headers['content-length'], '0');
      assert.equal(accepted.headers['transfer-encoding'], undefined);
      for (const status of [204, 304]) {
        const empty = await rawRequest(server.port, 'POST', { 'x-status': String(status) }, '');
        assert.equal(empty.status, status);
        assert.equal(empty.headers['content-length'], undefined);
        assert.equal(empty.headers['transfer-encoding'], undefined);
        assert.equal(empty.body, '');
      }
    } finally {
      await server.close();
    }
  });

  test('a large body (sent as one buffer) has its length in bytes, multi-byte characters counted', async () => {
    const body = `"${'é'.repeat(70_000)}"`;
    const server = await listenLoopback((req, res) => {
      const ex = fromNode(req, res);
      ex.writeHead(200, { 'content-type': 'application/json' });
      ex.end(body);
    });
    try {
      const r = await rawRequest(server.port, 'POST', {}, '');
      assert.equal(r.headers['content-length'], String(Buffer.byteLength(body)));
      assert.equal(r.headers['transfer-encoding'], undefined);
      assert.equal(r.body, body);
    } finally {
      await server.close();
    }
  });

  test('when the client goes away, onClose runs once, closed turns true and writes are ignored', async () => {
    let closes = 0;
    let closedResolve!: () => void;
    const closed = new Promise<void>((resolve) => {
      closedResolve = resolve;
    });
    const { server, open } = await streamServer((ex) => {
      ex.writeHead(200, SSE_HEAD);
      ex.onClose(() => {
        closes++;
        closedResolve();
      });
    });
    try {
      const { socket, ex } = await open();
      assert.equal(ex.closed, false);
      socket.destroy();
      await closed;
      assert.equal(ex.closed, true);
      assert.equal(ex.write('data: late\n\n'), false);
      ex.end();
      assert.equal(closes, 1);
      let late = 0;
      ex.onClose(() => late++);
      assert.equal(late, 1, 'a listener added after close runs at once');
    } finally {
      await server.close();
    }
  });

  test('flushed: undefined once the kernel has every byte, else settles when a slow reader reads', async () => {
    const { server, open } = await streamServer((ex) => ex.writeHead(200, SSE_HEAD));
    try {
      const { socket, ex } = await open();
      socket.pause();
      await new Promise((r) => setImmediate(r));
      assert.equal(ex.flushed(), undefined, 'the head left at once');
      // More than loopback's socket buffers hold while the client does not read.
      const big = `data: ${'x'.repeat(32 * 1024 * 1024)}\n\n`;
      ex.write(big);
      let settled = false;
      const flushed = ex.flushed()!.then(() => {
        settled = true;
      });
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(settled, false, 'the client has not read');
      assert.ok(ex.bytesBuffered > 0);
      let received = 0;
      socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
      });
      socket.resume();
      await flushed;
      assert.equal(ex.bytesBuffered, 0);
      assert.equal(ex.flushed(), undefined);
      assert.ok(received > 0);
      socket.destroy();
    } finally {
      await server.close();
    }
  });

  test('flushed settles when the client goes away with bytes still buffered', async () => {
    const { server, open } = await streamServer();
    try {
      const { socket, ex } = await open();
      socket.pause();
      ex.write(`data: ${'x'.repeat(32 * 1024 * 1024)}\n\n`);
      const flushed = ex.flushed();
      assert.ok(flushed);
      socket.destroy();
      // The failed write settles it, or the close: it never waits for bytes that cannot leave.
      await flushed;
    } finally {
      await server.close();
    }
  });
});
