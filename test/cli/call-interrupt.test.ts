// Ctrl-C on `mcpwire call` while a tool runs: the server's handler is cancelled, and the reason it is given
// names the method, in both eras (a 2025 session: notifications/cancelled with the client's reason; the 2026
// era: the client closes the request's response); mcpwire exits 130, printing no error.
import assert from 'node:assert/strict';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { StreamableHTTPHandler } from '../../src/server/http/streamable-http-handler.js';
import { Server } from '../../src/server/server.js';
import { killCliRuns, runCli } from '../../src/test-support/cli-run.js';
import { until } from '../../src/test-support/time-limit.js';

after(killCliRuns);

/** A server whose tool `wait` runs until it is cancelled, and says why it was. */
async function waitingServer() {
  const server = new Server({ name: 'waiting', version: '1' });
  const started: string[] = [];
  const reasons: unknown[] = [];
  server.tool({ name: 'wait', inputSchema: { type: 'object' } }, (_args, ctx) => {
    started.push(ctx.requestId.toString());
    return new Promise((resolve) => {
      ctx.signal.addEventListener('abort', () => {
        reasons.push(ctx.signal.reason);
        resolve({ content: [] });
      });
    });
  });
  const handler = new StreamableHTTPHandler(server);
  const http: HttpServer = createServer(handler.node());
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const close = async () => {
    await handler.close({ deadlineMs: 0 });
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
  };
  return { url, started, reasons, close };
}

describe('Ctrl-C on mcpwire call', { concurrency: true }, () => {
  const cases = [
    {
      era: 'legacy',
      reason:
        /^Request "tools\/call" was cancelled: the peer said "tools\/call cancelled: the user pressed Ctrl-C"$/,
    },
    { era: 'modern', reason: /^Request "tools\/call" was cancelled: the client closed the response$/ },
  ];
  for (const { era, reason } of cases) {
    test(`${era} era: the handler is cancelled with a reason naming tools/call; exit 130, no error`, {
      timeout: 30_000,
    }, async () => {
      const served = await waitingServer();
      try {
        const run = runCli(['call', '--era', era, served.url, 'call', 'wait']);
        run.child.stdin.end();
        await until(() => served.started.length > 0, 15_000, 'the tool to start');
        run.child.kill('SIGINT');
        assert.equal(await run.exit(15_000), 130);
        await until(() => served.reasons.length > 0, 5000, 'the handler to be cancelled');
        const [cancelled] = served.reasons as Error[];
        assert.match(cancelled.message, reason);
        assert.doesNotMatch(run.stderr(), /mcpwire: .*(failed|error)/i, run.stderr());
      } finally {
        await served.close();
      }
    });
  }
});
