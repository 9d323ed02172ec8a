// A connection with its client's requests bounded (what `serveStdio`'s `rateLimit` puts around stdio): past a
// bound a request is answered at once with -32000 naming it and never reaches the server; a request in flight
// counts until its response is sent; notifications are never counted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '../../client/client.js';
import { RateLimiter } from '../../http/rate-limiter.js';
import { McpError } from '../../jsonrpc/errors.js';
import { createMemoryPair } from '../../peer/memory.js';
import { ManualClock } from '../../test-support/manual-clock.js';
import { Server } from '../server.js';
import { rateLimited } from './rate-limited-connection.js';

async function limitedPair(limits: { requests?: number; concurrent?: number }, clock = new ManualClock()) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const server = new Server({ name: 'limited', version: '1' });
  server.tool({ name: 'hold' }, async () => {
    await held;
    return { content: [] };
  });
  server.tool({ name: 'quick' }, () => ({ content: [] }));
  const [clientEnd, serverEnd] = createMemoryPair();
  server.connect(rateLimited(serverEnd, new RateLimiter({ clock, windowMs: 60_000, ...limits })));
  const session = await new Client({ name: 'c', version: '1' }, { era: 'legacy' }).connect(clientEnd);
  return { session, release, server, clock };
}

const limitedError = (pattern: RegExp) => (err: Error) => {
  assert.ok(err instanceof McpError, String(err));
  assert.equal(err.code, -32000);
  assert.match(err.message, pattern);
  assert.ok((err.data as { retryAfterSeconds: number }).retryAfterSeconds >= 1);
  return true;
};

test('requests per window: past the bound -32000 with the time to wait; a new window lets the client in again', async () => {
  const { session, clock, server } = await limitedPair({ requests: 3 });
  try {
    // initialize was the first; notifications/initialized is not counted.
    await session.ping();
    await session.ping();
    await assert.rejects(
      session.ping(),
      limitedError(/^Rate limited: this client sent the maximum of 3 requests in 60 s; retry in 60 s$/),
    );
    clock.advance(60_000);
    await session.ping();
  } finally {
    await session.close();
    await server.close();
  }
});

test('requests in flight: one past the bound is refused until a response is sent', async () => {
  const { session, release, server } = await limitedPair({ concurrent: 1 });
  try {
    const holding = session.callTool('hold');
    await assert.rejects(session.callTool('quick'), limitedError(/has the maximum of 1 requests in flight/));
    release();
    await holding;
    await session.callTool('quick');
  } finally {
    await session.close();
    await server.close();
  }
});
