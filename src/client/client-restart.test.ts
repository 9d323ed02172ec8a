import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonRpcMessage, RequestId } from '../jsonrpc/types.js';
import type { Connection, Receiver } from '../peer/connection.js';
import { SessionExpiredError } from '../peer/errors.js';
import { createMemoryPair } from '../peer/memory.js';
import type { ServerSession } from '../server/legacy/server-session.js';
import { Server } from '../server/server.js';
import { Client } from './client.js';

/**
 * A client end whose far side can be swapped for a fresh server session, the way an HTTP
 * transport finds itself talking to a new session after a reconnect or a 404.
 */
class SwappableEnd implements Connection {
  private current!: Connection;
  private receiver!: Receiver;
  readonly sessions: ServerSession[] = [];

  constructor(private readonly server: Server) {
    this.attach();
  }

  private attach(): void {
    const [near, far] = createMemoryPair();
    this.current = near;
    this.sessions.push(this.server.connect(far));
    if (this.receiver !== undefined) this.startCurrent();
  }

  private startCurrent(): void {
    const receiver = this.receiver;
    this.current.start({
      message: (m, info) => receiver.message(m, info),
      batch: (b, info) => receiver.batch(b, info),
      error: (e) => receiver.error(e),
      restarted: (c, unsent) => receiver.restarted(c, unsent),
      // The old far side closing is part of the swap, not the end of this connection.
      closed: () => {},
    });
  }

  /** The old server session is gone; a new one waits for initialize. */
  swap(): void {
    const old = this.current;
    this.attach();
    old.close();
    this.receiver.restarted(new Error('HTTP 404: the server no longer knows this session'));
  }

  start(receiver: Receiver): void {
    this.receiver = receiver;
    this.startCurrent();
  }
  send(message: JsonRpcMessage, related?: RequestId): Promise<void> {
    return this.current.send(message, related);
  }
  async close(): Promise<void> {
    await this.current.close();
    this.receiver.closed();
  }
}

test('after a restart the client initializes anew, fails what was lost and resends what was safe', async () => {
  const server = new Server({ name: 's', version: '1' });
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  server.tool({ name: 'hang', description: 'never answers before the swap' }, async () => {
    await gate;
    return { content: [] };
  });
  server.tool({ name: 'count', description: 'which session answered' }, (_args, ctx) => ({
    content: [{ type: 'text', text: String(conn.sessions.indexOf(ctx.session!)) }],
  }));
  const conn = new SwappableEnd(server);
  const client = new Client({ name: 'c', version: '1' }, { roots: [{ uri: 'file:///tmp', name: 'tmp' }] });
  const session = await client.connect(conn);
  assert.equal(conn.sessions[0].clientInfo?.name, 'c');

  const lost = session.callTool('hang');
  const safe = session.callTool('hang', {}, { retryOnRestart: true });
  await new Promise((r) => setTimeout(r, 10));
  conn.swap();
  await assert.rejects(lost, SessionExpiredError);
  release();
  assert.deepEqual(await safe, { content: [] });

  // The new server session was initialized with the client's capabilities, and serves calls.
  const fresh = conn.sessions[1];
  assert.equal(fresh.initialized, true);
  assert.deepEqual(fresh.clientCapabilities?.roots, { listChanged: true });
  assert.deepEqual(await fresh.listRoots(), { roots: [{ uri: 'file:///tmp', name: 'tmp' }] });
  const answer = await session.callTool('count');
  assert.deepEqual(answer.content, [{ type: 'text', text: '1' }]);
  await session.close();
});
