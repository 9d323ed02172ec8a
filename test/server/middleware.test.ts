// Server.use: middleware runs around every request in the order registered, in both eras, over Streamable HTTP,
// stdio and an in-memory connection: it sees the method and what it is about, answers in the handler's place,
// refuses with its McpError, and a failure of its own is -32603 to the caller and an onerror report. The
// typed shortcuts (beforeToolCall, afterToolCall) are middleware like the rest; a request that asks the client
// for input goes through it on each round.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client, type ClientSession, connectStdio, connectUrl } from '../../src/client/index.js';
import { McpError } from '../../src/jsonrpc/errors.js';
import { createMemoryPair } from '../../src/peer/memory.js';
import { StreamableHTTPHandler } from '../../src/server/http/streamable-http-handler.js';
import { serveOn } from '../../src/test-support/mcp-http.js';
import { middlewareServer } from '../../src/test-support/middleware-server.js';
import { within } from '../../src/test-support/time-limit.js';

const MS = 20_000;
const ERAS = ['legacy', 'modern'] as const;
const SERVER = fileURLToPath(new URL('../../src/test-support/middleware-server.ts', import.meta.url));

const client = (era: 'legacy' | 'modern') =>
  new Client(
    { name: 'c', version: '1' },
    {
      era,
      // Over stdio, server/discover waits for the child (node and tsx) to start: more than the default 5 s on a
      // loaded machine.
      probeTimeoutMs: MS,
      elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) },
    },
  );
const texts = async (session: ClientSession, tool: string, args: Record<string, unknown> = {}) =>
  (await session.callTool(tool, args)).content.map((block) => (block as { text: string }).text);

/** What every transport must show of the middleware, through `session`. */
async function behaves(session: ClientSession): Promise<void> {
  assert.deepEqual(await texts(session, 'hello', { name: 'Ada' }), [
    'hello Ada',
    '(after)',
    '[inner]',
    '[outer]',
  ]);
  assert.deepEqual(await texts(session, 'cached'), ['from the cache', '[inner]', '[outer]']);
  assert.deepEqual(await texts(session, 'ask'), ['hi Ada', '[inner]', '[outer]']);
  await assert.rejects(session.callTool('secret'), (err: Error) => {
    assert.ok(err instanceof McpError);
    assert.deepEqual([err.code, err.message], [-32600, 'secret is not for this caller']);
    return true;
  });
  await assert.rejects(session.callTool('broken-guard'), (err: Error) => {
    assert.ok(err instanceof McpError);
    assert.equal(err.code, -32603);
    assert.equal(err.message, 'A middleware of this server failed on tools/call: the guard broke');
    return true;
  });
  // Lists go through it too, unchanged by middleware that leaves them be.
  const names: string[] = [];
  for await (const tool of session.tools()) names.push(tool.name);
  assert.deepEqual(names.sort(), ['ask', 'broken-guard', 'hello', 'secret']);
}

describe('middleware over Streamable HTTP', () => {
  const seen: string[] = [];
  const errors: Error[] = [];
  let url: string;
  let close: () => Promise<void>;

  before(async () => {
    const served = await serveOn(
      new StreamableHTTPHandler(middlewareServer(seen, (err) => errors.push(err))).node(),
    );
    url = served.url;
    close = () => served.close();
  });

  after(() => close?.());

  for (const era of ERAS) {
    test(`${era} client: in order, in place, refused, failed, around each round`, async () => {
      seen.length = 0;
      errors.length = 0;
      const session = await within(connectUrl(client(era), url), MS, 'connect');
      try {
        await behaves(session);
      } finally {
        await session.close();
      }
      assert.deepEqual(
        errors.map((e) => e.message),
        ['the guard broke'],
      );
      assert.ok(seen.includes(`> tools/call hello ${era}`), seen.join('\n'));
      assert.ok(seen.includes(`> tools/list - ${era}`), seen.join('\n'));
      // The request that asked the client went through the middleware on each of its rounds (2026), or once (2025,
      // where the server asks the client itself within the request).
      const asks = seen.filter((line) => line === `> tools/call ask ${era}`).length;
      assert.equal(asks, era === 'modern' ? 2 : 1);
    });
  }
});

describe('middleware over stdio', () => {
  for (const era of ERAS) {
    test(`${era} client`, async () => {
      const session = await within(
        connectStdio(client(era), {
          command: process.execPath,
          args: ['--import', import.meta.resolve('tsx'), SERVER, '--stdio'],
        }),
        MS,
        'connect',
      );
      try {
        assert.equal(session.era, era);
        await behaves(session);
      } finally {
        await session.close();
      }
    });
  }
});

test('middleware on an in-memory connection (2025)', async () => {
  const [clientEnd, serverEnd] = createMemoryPair();
  const server = middlewareServer();
  server.connect(serverEnd);
  const session = await within(client('legacy').connect(clientEnd), MS, 'connect');
  try {
    await behaves(session);
  } finally {
    await session.close();
    await server.close();
  }
});
