// Our Client over the Streamable HTTP client transport against the built `mcpwire serve`, run as a child
// process, when things break: the server killed and restarted mid-session, and a response stream cut
// mid-event by a proxy. Needs `npm run build` first (npm test does it).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { StreamableHTTPClientConnection } from '../../src/client/http/streamable-http-client-connection.js';
import type { JsonRpcMessage, RequestId } from '../../src/jsonrpc/types.js';
import type { Receiver } from '../../src/peer/connection.js';
import { SessionExpiredError } from '../../src/peer/errors.js';
import { CLI } from '../../src/test-support/cli-run.js';
import { startCuttingProxy } from '../../src/test-support/cutting-proxy.js';
import { freePort } from '../../src/test-support/free-port.js';
import { until } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

// Each test starts `mcpwire serve` once or twice: seconds each on a loaded machine.
const TEST_TIMEOUT_MS = 60_000;

/** Every server started, so a failed test leaves none running. */
const servers = new Set<ChildProcess>();

before(() => {
  assert.ok(existsSync(CLI), `${CLI} is missing: run \`npm run build\` first (npm test does)`);
});

after(() => {
  for (const child of servers) child.kill('SIGKILL');
});

/** `mcpwire serve --port PORT`, resolved once it prints its URL (it listens by then). */
function serve(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  servers.add(child);
  child.once('exit', () => servers.delete(child));
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes(`http://127.0.0.1:${port}/mcp`)) {
        child.stdout!.off('data', onData);
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`mcpwire serve exited (${code ?? signal}) before listening:\n${output}`)),
    );
  });
}

function kill(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** One HTTP exchange the client made, as it saw it. */
interface Exchange {
  method: string;
  /** The JSON-RPC method of a POSTed request or notification. */
  rpc: string | undefined;
  sessionId: string | undefined;
  status: number | undefined;
}

/** A fetch that records every exchange, for assertions on what went over the wire. */
function recordingFetch(log: Exchange[]): typeof fetch {
  return async (input, init) => {
    const headers = (init?.headers ?? {}) as Record<string, string>;
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : undefined;
    const exchange: Exchange = {
      method: init?.method ?? 'GET',
      rpc: body?.method,
      sessionId: headers['mcp-session-id'],
      status: undefined,
    };
    log.push(exchange);
    const response = await fetch(input, init);
    exchange.status = response.status;
    return response;
  };
}

/** The transport with what it sends and delivers recorded, to count messages below the session. */
class TappedConnection extends StreamableHTTPClientConnection {
  readonly sent: JsonRpcMessage[] = [];
  readonly delivered: JsonRpcMessage[] = [];

  override start(receiver: Receiver): void {
    const delivered = this.delivered;
    super.start({
      message: (m, info) => {
        delivered.push(m);
        receiver.message(m, info);
      },
      batch: (b, info) => {
        delivered.push(...b);
        receiver.batch(b, info);
      },
      error: (err) => receiver.error(err),
      restarted: (cause) => receiver.restarted(cause),
      closed: (cause) => receiver.closed(cause),
    });
  }

  override send(message: JsonRpcMessage, related?: RequestId): Promise<void> {
    this.sent.push(message);
    return super.send(message, related);
  }
}

const ROOT = { uri: 'file:///tmp/mcpwire-faults', name: 'faults' };

test('server killed and restarted on the same port: the 404 re-initializes, a retryOnRestart call succeeds, a plain one expires', {
  timeout: TEST_TIMEOUT_MS,
}, async () => {
  const port = await freePort();
  const first = await serve(port);
  const log: Exchange[] = [];
  const errors: Error[] = [];
  const client = new Client(
    { name: 'faults-test', version: '1.0.0' },
    { roots: [ROOT], requestTimeoutMs: 10_000, onerror: (err) => errors.push(err) },
  );
  const connection = new StreamableHTTPClientConnection(`http://127.0.0.1:${port}/mcp`, {
    fetch: recordingFetch(log),
    // The dropped streams are resumed every second (the server's retry:) until the restarted server answers; the
    // default 5 attempts would give up on a restart slower than that, which a loaded machine makes.
    retry: { maxAttempts: 30 },
  });
  const session = await client.connect(connection);
  let restarted: ChildProcess | undefined;
  try {
    assert.equal(toolText(await session.callTool('echo', { message: 'before' })), 'Echo: before');
    const lostSession = connection.sessionId;
    assert.ok(lostSession, 'the server gave a session id');

    // A plain call in flight when the server dies: many short steps, so it is surely running.
    let progressed = false;
    const inFlight = session.callTool(
      'long_running',
      { duration: 60, steps: 600 },
      {
        onprogress: () => {
          progressed = true;
        },
      },
    );
    inFlight.catch(() => {}); // asserted below
    await until(() => progressed, 5000, 'the long_running call to report progress');

    await kill(first);
    // Before the restart: a resumed stream may be the first to meet the restarted server, as it starts listening.
    const killedAt = log.length;
    restarted = await serve(port);

    const retried = session.callTool('echo', { message: 'after' }, { retryOnRestart: true });
    await assert.rejects(inFlight, SessionExpiredError);
    assert.equal(toolText(await retried), 'Echo: after');

    // The restarted server did not know the old session, said so with 404, and saw a new initialize.
    const after = log.slice(killedAt);
    const lost = after.findIndex((e) => e.status === 404 && e.sessionId === lostSession);
    assert.ok(lost >= 0, `a request carrying the lost session got 404: ${JSON.stringify(after)}`);
    const initialize = after.findIndex((e) => e.rpc === 'initialize');
    assert.ok(initialize > lost, 'initialize was sent after the 404');
    assert.equal(after[initialize]!.status, 200);
    assert.equal(after[initialize]!.sessionId, undefined, 'a fresh initialize carries no session id');
    assert.ok(after.slice(initialize).some((e) => e.rpc === 'notifications/initialized' && e.status === 202));
    assert.ok(connection.sessionId !== undefined && connection.sessionId !== lostSession);

    // The new session knows this client's capabilities and roots: the server can ask for them.
    const roots = await session.callTool('list_roots');
    assert.deepEqual(roots.structuredContent, { roots: [ROOT.uri] });
    assert.deepEqual(errors, []);
  } finally {
    await session.close();
    await kill(first);
    if (restarted !== undefined) await kill(restarted);
  }
});

test('a response stream cut mid-event is resumed with Last-Event-ID: every progress notification and the result exactly once', {
  timeout: TEST_TIMEOUT_MS,
}, async () => {
  const port = await freePort();
  const server = await serve(port);
  // Past the priming event and a couple of progress events, in the middle of one.
  const proxy = await startCuttingProxy(port, '"long_running"', 500);
  const proxyPort = proxy.port;
  const errors: Error[] = [];
  const client = new Client(
    { name: 'faults-test', version: '1.0.0' },
    { requestTimeoutMs: 10_000, onerror: (err) => errors.push(err) },
  );
  const connection = new TappedConnection(`http://127.0.0.1:${proxyPort}/mcp`);
  const session = await client.connect(connection);
  try {
    const steps = 10;
    const progress: number[] = [];
    const result = await session.callTool(
      'long_running',
      { duration: 2, steps },
      { onprogress: (p) => progress.push(p.progress) },
    );
    assert.equal(toolText(result), `Long-running operation completed: ${steps} steps in 2 s`);
    assert.ok(proxy.wasCut(), 'the proxy cut the call');

    // The transport resumed the call's stream with GET + Last-Event-ID, through the proxy.
    assert.ok(
      proxy.seen.some((r) => r.method === 'GET' && r.lastEventId !== undefined),
      `a GET resumed a stream: ${JSON.stringify(proxy.seen)}`,
    );

    // Nothing lost and nothing twice, counted where the transport hands messages to the session.
    assert.deepEqual(
      progress,
      Array.from({ length: steps }, (_, i) => i + 1),
    );
    const call = connection.sent.find((m) => 'method' in m && m.method === 'tools/call');
    assert.ok(call !== undefined && 'id' in call);
    const answers = connection.delivered.filter((m) => !('method' in m) && m.id === call.id);
    assert.equal(answers.length, 1, 'the result arrived exactly once');
    const notes = connection.delivered.filter((m) => 'method' in m && m.method === 'notifications/progress');
    assert.equal(notes.length, steps, 'each progress notification arrived exactly once');
    assert.deepEqual(errors, []);
  } finally {
    await session.close();
    await proxy.close();
    await kill(server);
  }
});
