import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  DEFAULT_MAX_BODY_BYTES,
  REFUSED_BODY_DRAIN_BYTES,
  REFUSED_BODY_DRAIN_MS,
} from '../../src/http/exchange.js';
import { CLI, type CliRun, killCliRuns, serveDemo } from '../../src/test-support/cli-run.js';
import { rawConnect } from '../../src/test-support/http-loopback.js';
import { ACCEPT_BOTH } from '../../src/test-support/mcp-http.js';
import { within } from '../../src/test-support/time-limit.js';

// A body over the default limit, sent whole by a client that does not stop at the 413: the server must let it
// read the 413 every time, which it can only if it reads what is still coming instead of resetting the connection.
const BODY_BYTES = 5 * 1024 * 1024;
const TRIES = 10;
const CHUNK = 64 * 1024;
const CURL = '/usr/bin/curl';
const HEADERS = { 'content-type': 'application/json', accept: ACCEPT_BOTH };

const body = Buffer.from(
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(BODY_BYTES) } }),
);
const chunks = Array.from({ length: Math.ceil(body.length / CHUNK) }, (_, i) =>
  body.subarray(i * CHUNK, (i + 1) * CHUNK),
);

/** 'ok' for a 413 with the JSON-RPC error body; otherwise what the client got instead. */
function verdict(status: number, text: string): string {
  if (status !== 413) return `status ${status}`;
  try {
    const parsed = JSON.parse(text);
    const ok =
      parsed.jsonrpc === '2.0' &&
      parsed.id === null &&
      typeof parsed.error?.code === 'number' &&
      String(parsed.error.message).startsWith('Payload Too Large');
    return ok ? 'ok' : `body ${text}`;
  } catch {
    return `unparsable body ${JSON.stringify(text.slice(0, 200))}`;
  }
}

type Client = (url: string, chunked: boolean) => Promise<string>;

const nodeHttp: Client = (url, chunked) =>
  new Promise((resolve) => {
    const headers: Record<string, string | number> = { ...HEADERS };
    if (!chunked) headers['content-length'] = body.length;
    const req = request(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (piece: string) => {
        text += piece;
      });
      res.on('end', () => resolve(verdict(res.statusCode ?? 0, text)));
      res.on('error', (err) =>
        resolve(`response error ${(err as NodeJS.ErrnoException).code ?? err.message}`),
      );
    });
    // Settles nothing once the response was read: a later EPIPE is the client writing on after it.
    req.on('error', (err) => resolve(`error ${(err as NodeJS.ErrnoException).code ?? err.message}`));
    if (chunked) for (const chunk of chunks) req.write(chunk);
    req.end(chunked ? undefined : body);
  });

const undiciFetch: Client = async (url, chunked) => {
  try {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    const res = await fetch(url, {
      method: 'POST',
      headers: HEADERS,
      body: chunked ? stream : body,
      duplex: 'half',
    } as RequestInit);
    return verdict(res.status, await res.text());
  } catch (err) {
    const cause = (err as { cause?: NodeJS.ErrnoException }).cause;
    return `error ${cause?.code ?? cause?.message ?? (err as Error).message}`;
  }
};

let bodyFile = '';
const curl: Client = (url, chunked) =>
  new Promise((resolve) => {
    const args = ['-sS', '-o', '-', '-w', '\n%{http_code}', '-X', 'POST', '--data-binary', `@${bodyFile}`];
    for (const [name, value] of Object.entries(HEADERS)) args.push('-H', `${name}: ${value}`);
    if (chunked) args.push('-H', 'transfer-encoding: chunked');
    execFile(CURL, [...args, url], { timeout: 20_000, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (err !== null) {
        resolve(`curl exit ${err.code ?? err.signal}: ${stderr.trim()}`);
        return;
      }
      const split = stdout.lastIndexOf('\n');
      resolve(verdict(Number(stdout.slice(split + 1)), stdout.slice(0, split)));
    });
  });

/** The path of the `endpoint` event of a new legacy SSE stream on `port`; the stream stays open. */
function legacyEndpoint(port: number): Promise<{ path: string; close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', path: '/sse', headers: { accept: 'text/event-stream' } });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (piece: string) => {
        text += piece;
        const found = /event: endpoint\ndata: (\S+)\n\n/.exec(text);
        if (found !== null) resolve({ path: found[1], close: () => req.destroy() });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a body over the limit: the 413 reaches the client, which may still be sending', () => {
  // Its own process, as users run it: a client and a server sharing one event loop take turns, which hides
  // the race between the server's reset and the client's next write.
  let run: CliRun;
  let port = 0;
  let legacyStream: { path: string; close: () => void };
  let dir = '';

  before(async () => {
    assert.ok(existsSync(CLI), `${CLI} is missing: run \`npm run build\` first (npm test does)`);
    assert.ok(DEFAULT_MAX_BODY_BYTES < body.length);
    dir = mkdtempSync(join(tmpdir(), 'mcpwire-413-'));
    bodyFile = join(dir, 'body.json');
    writeFileSync(bodyFile, body);
    const served = await serveDemo();
    run = served.run;
    port = Number(new URL(served.url).port);
    legacyStream = await legacyEndpoint(port);
  });
  after(async () => {
    legacyStream?.close();
    run?.child.kill('SIGINT');
    await run?.exit(10_000).catch(() => {});
    killCliRuns();
    rmSync(dir, { recursive: true, force: true });
  });

  const clients: [string, Client][] = [
    ['node http.request', nodeHttp],
    ['fetch (undici)', undiciFetch],
    ['curl', curl],
  ];
  for (const [endpoint, path] of [
    ['/mcp', () => '/mcp'],
    ['legacy /messages', () => legacyStream.path],
  ] as const) {
    for (const [name, client] of clients) {
      for (const chunked of [false, true]) {
        const framing = chunked ? 'chunked' : 'Content-Length';
        test(`${endpoint}, ${name}, ${framing}: 413 with its JSON-RPC error, ${TRIES} of ${TRIES} times`, async (t) => {
          if (client === curl && !existsSync(CURL)) {
            t.skip(`${CURL} is not installed`);
            return;
          }
          const url = `http://127.0.0.1:${port}${path()}`;
          const seen: string[] = [];
          for (let i = 0; i < TRIES; i++)
            seen.push(await within(client(url, chunked), 30_000, `try ${i + 1}`));
          const failed = seen.filter((outcome) => outcome !== 'ok');
          assert.deepEqual(
            failed,
            [],
            `${TRIES - failed.length} of ${TRIES} got the 413: ${seen.join('; ')}`,
          );
        });
      }
    }
  }

  test('a client that never stops sending is cut off once the drain bound is passed', async () => {
    const socket = await rawConnect(
      port,
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
        `Accept: ${ACCEPT_BOTH}\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    let received = '';
    let sent = 0;
    socket.setEncoding('latin1');
    socket.on('data', (piece: string) => {
      received += piece;
    });
    socket.on('error', () => {});
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const frame = Buffer.concat([Buffer.from(`${CHUNK.toString(16)}\r\n`), chunks[1], Buffer.from('\r\n')]);
    // Counts every chunk handed to the socket, so that `sent` is at least what the server could have read.
    const flood = () => {
      for (let more = true; more && !socket.destroyed; sent += CHUNK) more = socket.write(frame);
    };
    socket.on('drain', flood);
    flood();
    await within(closed, 20_000, 'the server to close the connection');
    assert.match(received, /^HTTP\/1\.1 413 /);
    // Cut once the limit and the drain bound were read, not at the limit.
    assert.ok(sent > DEFAULT_MAX_BODY_BYTES + REFUSED_BODY_DRAIN_BYTES, `sent ${sent} bytes`);
  });

  test('a client that trickles on after the 413 is cut off after the drain time bound', async () => {
    const head = Buffer.from(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
        `Accept: ${ACCEPT_BOTH}\r\nContent-Length: ${body.length * 4}\r\n\r\n`,
    );
    const started = Date.now();
    const socket = await rawConnect(port, Buffer.concat([head, body]));
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (piece: string) => {
      received += piece;
    });
    socket.on('error', () => {});
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const trickle = setInterval(() => {
      if (!socket.destroyed) socket.write(chunks[1].subarray(0, 1024));
    }, 20);
    try {
      await within(closed, 20_000, 'the server to close the connection');
    } finally {
      clearInterval(trickle);
    }
    assert.match(received, /^HTTP\/1\.1 413 /);
    // Sent far below the drain's byte bound: it is its time bound that ends the connection.
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= REFUSED_BODY_DRAIN_MS - 250, `closed after ${elapsed} ms`);
  });
});
