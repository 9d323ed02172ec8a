// `mcpwire serve --rate-limit N --max-in-flight N`: each caller's requests per minute bounded (429 with
// Retry-After past it; over --stdio a JSON-RPC error), and the flags' mistakes.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Client, connectStdio } from '../../src/client/index.js';
import { McpError } from '../../src/jsonrpc/errors.js';
import { CLI, killCliRuns, runCli, serveDemo, stopServe } from '../../src/test-support/cli-run.js';
import { jsonBody } from '../../src/test-support/mcp-http.js';
import { postModern } from '../../src/test-support/modern-http.js';

after(() => killCliRuns());

test('--rate-limit 2: the third request of a minute gets 429 with Retry-After', async () => {
  const { run, url } = await serveDemo(['--rate-limit', '2', '--max-in-flight', '4']);
  try {
    for (const id of [1, 2]) {
      const res = await postModern(url, id, 'tools/list');
      assert.equal(res.status, 200);
      await res.text();
    }
    const refused = await postModern(url, 3, 'tools/list');
    assert.equal(refused.status, 429);
    const seconds = Number(refused.headers.get('retry-after'));
    assert.ok(seconds >= 1 && seconds <= 60, String(seconds));
    assert.match((await jsonBody(refused)).error.message, /sent the maximum of 2 requests in 60 s/);
  } finally {
    await stopServe(run);
  }
});

for (const era of ['legacy', 'modern'] as const) {
  test(`--stdio --rate-limit 3, ${era} client: the opening request and two more; then -32000 naming the bound`, async () => {
    const client = new Client({ name: 'c', version: '1' }, { era });
    const session = await connectStdio(client, {
      command: process.execPath,
      args: [CLI, 'serve', '--stdio', '--rate-limit', '3'],
    });
    try {
      assert.equal(session.era, era);
      await session.listTools();
      await session.listTools();
      await assert.rejects(session.listTools(), (err: Error) => {
        assert.ok(err instanceof McpError);
        assert.equal(err.code, -32000);
        assert.match(
          err.message,
          /^Rate limited: this client sent the maximum of 3 requests in 60 s; retry in \d+ s$/,
        );
        return true;
      });
    } finally {
      await session.close();
    }
  });
}

test('--rate-limit and --max-in-flight take whole numbers', async () => {
  for (const [args, message] of [
    [['--rate-limit', '0'], /--rate-limit takes a whole number of at least 1, not "0"/],
    [['--max-in-flight', 'many'], /--max-in-flight takes a whole number of at least 1, not "many"/],
  ] as const) {
    const run = runCli(['serve', ...args]);
    run.child.stdin.end();
    assert.equal(await run.exit(10_000), 2, run.stderr());
    assert.match(run.stderr(), message);
  }
});
