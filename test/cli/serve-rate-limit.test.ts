// `mcpwire serve --rate-limit N --max-in-flight N`: each caller's requests per minute bounded (429 with
// Retry-After past it), and the flags' mistakes.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { killCliRuns, runCli, serveDemo, stopServe } from '../../src/test-support/cli-run.js';
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

test('--rate-limit and --max-in-flight take whole numbers, and no --stdio', async () => {
  for (const [args, message] of [
    [['--rate-limit', '0'], /--rate-limit takes a whole number of at least 1, not "0"/],
    [['--max-in-flight', 'many'], /--max-in-flight takes a whole number of at least 1, not "many"/],
    [['--stdio', '--rate-limit', '5'], /--stdio has one client/],
  ] as const) {
    const run = runCli(['serve', ...args]);
    run.child.stdin.end();
    assert.equal(await run.exit(10_000), 2, run.stderr());
    assert.match(run.stderr(), message);
  }
});
