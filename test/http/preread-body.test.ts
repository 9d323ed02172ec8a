// A body read before the handler ran, given to the node listener as a framework would: a parsed JSON value, its
// text, its bytes, or left in req.body by an express-style parser. Each is served, checked and bounded as one
// the handler reads itself, and whatever cannot be told from it is said precisely.
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { StreamableHTTPHandler } from '../../src/server/http/streamable-http-handler.js';
import { Server } from '../../src/server/server.js';
import { type LoopbackServer, listenLoopback } from '../../src/test-support/http-loopback.js';
import { modernHeaders, modernMessage } from '../../src/test-support/modern-http.js';

const LIMIT = 1024;
const DISCOVER = modernMessage(1, 'server/discover') as { params: Record<string, unknown> };

/** How the test's "framework" reads a request before handing it over, chosen per request by a header. */
type Reader = (req: IncomingMessage) => Promise<unknown>;

async function text(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const READERS: Record<string, Reader> = {
  json: async (req) => JSON.parse(await text(req)),
  text,
  bytes: async (req) => new TextEncoder().encode(await text(req)),
  // express.json(): the value goes on req.body, the listener gets express's `next` as its third argument.
  'req.body': async (req) => {
    (req as { body?: unknown }).body = JSON.parse(await text(req));
    return () => assert.fail('next() was called');
  },
  // A parser that read the stream and kept nothing where the listener can find it.
  lost: async (req) => {
    await text(req);
    return undefined;
  },
  // No parser: the listener reads the stream itself; a function (express's next) is no body.
  none: async () => () => {},
};

const errors: Error[] = [];
let http: LoopbackServer;
let handler: StreamableHTTPHandler;

before(async () => {
  handler = new StreamableHTTPHandler(new Server({ name: 't', version: '1' }), {
    maxBodyBytes: LIMIT,
    onerror: (err) => errors.push(err),
  });
  const listener = handler.node();
  http = await listenLoopback((req, res) => {
    READERS[String(req.headers['x-reader'])](req).then((body) => listener(req, res, body));
  });
});

after(async () => {
  await handler.close();
  await http.close();
});

async function post(reader: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`http://127.0.0.1:${http.port}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...modernHeaders('server/discover'),
      'x-reader': reader,
      ...headers,
    },
    body,
  });
  const answer = (await response.json()) as {
    id?: unknown;
    result?: unknown;
    error?: { code: number; message: string };
  };
  return { status: response.status, ...answer };
}

describe('a body read before the node listener', () => {
  for (const reader of ['json', 'text', 'bytes', 'req.body', 'none']) {
    test(`${reader}: a request is served`, async () => {
      const answer = await post(reader, JSON.stringify(DISCOVER));
      assert.equal(answer.status, 200, JSON.stringify(answer));
      assert.equal(answer.id, 1);
      assert.ok(
        (answer.result as { supportedVersions?: string[] }).supportedVersions?.includes('2026-07-28'),
      );
    });
  }

  for (const reader of ['json', 'req.body']) {
    test(`${reader}: a parsed value that is no message is -32600 with its id, as parsed text would be`, async () => {
      const answer = await post(reader, JSON.stringify({ id: 'x', method: 'ping' }));
      assert.equal(answer.status, 400);
      assert.equal(answer.error?.code, -32600);
      assert.equal(answer.id, 'x');
    });

    test(`${reader}: a declared Content-Length over maxBodyBytes is 413 though the body was read`, async () => {
      const padded = JSON.stringify({ ...DISCOVER, params: { ...DISCOVER.params, pad: 'x'.repeat(LIMIT) } });
      const answer = await post(reader, padded);
      assert.equal(answer.status, 413);
      assert.match(answer.error?.message ?? '', new RegExp(`limit of ${LIMIT} bytes`));
    });
  }

  for (const reader of ['text', 'bytes']) {
    test(`${reader}: counted in bytes against maxBodyBytes; bad JSON is -32700`, async () => {
      // 600 two-byte characters: 1,200 bytes, though 600 UTF-16 units.
      const wide = JSON.stringify({ ...DISCOVER, params: { ...DISCOVER.params, pad: 'é'.repeat(600) } });
      assert.equal((await post(reader, wide)).status, 413);
      const bad = await post(reader, '{"jsonrpc":');
      assert.equal(bad.status, 400);
      assert.equal(bad.error?.code, -32700);
    });
  }

  test('a body read by something that kept none is a 400 saying how to mount the handler', async () => {
    errors.length = 0;
    const answer = await post('lost', JSON.stringify(DISCOVER));
    assert.equal(answer.status, 400);
    assert.match(answer.error?.message ?? '', /already read .* mount the handler before that body parser/);
    assert.ok(
      errors.some((e) => /already read/.test(e.message)),
      'onerror heard it',
    );
  });
});
