// `mcpwire serve --max-body`, `--max-sessions` and `--session-idle-timeout` (the built command): each bound
// reaches both HTTP endpoints as the handlers' own options would, with the answers they give; `--max-body` also
// bounds the message lines of `--stdio`.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Client, connectStdio } from '../../src/client/index.js';
import { McpError } from '../../src/jsonrpc/errors.js';
import { CLI, type CliRun, runCli, serveDemo, stopServe } from '../../src/test-support/cli-run.js';
import { openSession, post } from '../../src/test-support/mcp-http.js';

const runs: CliRun[] = [];
after(() => Promise.all(runs.map((run) => stopServe(run))));

async function serve(args: string[]): Promise<string> {
  const { run, url } = await serveDemo(args);
  runs.push(run);
  return url;
}

const PING = { jsonrpc: '2.0', id: 1, method: 'ping' };

test('--max-body 2KiB: a larger POST gets 413 with its JSON-RPC error, a smaller one is served', async () => {
  const url = await serve(['--max-body', '2KiB']);
  const sessionId = await openSession(url);
  const big = await post(
    url,
    {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: 'x'.repeat(3000) } },
    },
    { sessionId },
  );
  assert.equal(big.status, 413);
  const body = (await big.json()) as { error: { code: number; message: string } };
  assert.match(body.error.message, /2048 bytes/);
  const small = await post(url, PING, { sessionId });
  assert.equal(small.status, 200);
  await small.text();
});

for (const era of ['legacy', 'modern'] as const) {
  test(`--stdio --max-body 2KiB, ${era} client: a longer request fails at once with -32600, the next is served`, async () => {
    const client = new Client({ name: 'c', version: '1' }, { era, requestTimeoutMs: 60_000 });
    const session = await connectStdio(client, {
      command: process.execPath,
      args: [CLI, 'serve', '--stdio', '--max-body', '2KiB'],
    });
    try {
      assert.equal(session.era, era);
      // Without the id its start shows, the error would answer no request, and this one would wait a minute.
      await assert.rejects(session.callTool('echo', { message: 'x'.repeat(3000) }), (err: Error) => {
        assert.ok(err instanceof McpError, String(err));
        assert.equal(err.code, -32600);
        assert.match(err.message, /^Invalid request: message of \d+ bytes exceeds the limit of 2048 bytes$/);
        return true;
      });
      const served = await session.callTool('echo', { message: 'short' });
      assert.match(JSON.stringify(served.content), /short/);
    } finally {
      await session.close();
    }
  });
}

test('--max-sessions 1: a second session takes the place of the idle first, whose client gets 404', async () => {
  const url = await serve(['--max-sessions', '1']);
  const first = await openSession(url);
  const second = await openSession(url);
  const gone = await post(url, PING, { sessionId: first });
  assert.equal(gone.status, 404);
  await gone.text();
  const kept = await post(url, PING, { sessionId: second });
  assert.equal(kept.status, 200);
  await kept.text();
  // The HTTP+SSE endpoint's session is its open stream: at the cap a second one is refused.
  const sse = new URL('/sse', url);
  const open = new AbortController();
  const held = await fetch(sse, { headers: { accept: 'text/event-stream' }, signal: open.signal });
  try {
    assert.equal(held.status, 200);
    const refused = await fetch(sse, { headers: { accept: 'text/event-stream' } });
    assert.equal(refused.status, 503);
    assert.match(await refused.text(), /limit of 1 sessions/);
  } finally {
    open.abort();
  }
});

test('--session-idle-timeout 100: a session unused that long is closed', async () => {
  const url = await serve(['--session-idle-timeout', '100']);
  const sessionId = await openSession(url);
  // Each look uses the session, so looks are 1 s apart: ten times what the timeout and the sweep take together.
  let status = 0;
  for (let look = 0; look < 20 && status !== 404; look++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const res = await post(url, PING, { sessionId });
    await res.text();
    status = res.status;
  }
  assert.equal(status, 404);
});

test('a usage mistake: exit 2 with what the flag takes', async () => {
  const run = runCli(['serve', '--max-body', '16MB']);
  assert.equal(await run.exit(10_000), 2);
  assert.match(run.stderr(), /--max-body takes a size from 1KiB to 511MiB/);
});
