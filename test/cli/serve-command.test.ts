// `mcpwire serve -- CMD ARGS…` (the built command): a stdio server of our own served over HTTP to both eras, its
// stderr in serve's log, 503 with Retry-After (at /mcp and /ready) while it restarts after exiting, and the usage
// mistakes.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type CliRun, callCli, runCli, serveDemo, stopServe } from '../../src/test-support/cli-run.js';

const CHILD = fileURLToPath(new URL('../../src/test-support/bridge-child.ts', import.meta.url));
/** `-- CMD ARGS…` for serve: the child, run through tsx. */
const SERVE_CHILD = ['--', process.execPath, '--import', import.meta.resolve('tsx'), CHILD];

let run: CliRun;
let url: string;
before(async () => {
  ({ run, url } = await serveDemo(SERVE_CHILD));
});
after(() => stopServe(run));

const call = (...args: string[]) => callCli(url, args);

test("serve names the child's server as what it serves", () => {
  assert.match(run.stdout(), /^bridge-child \(.*bridge-child\.ts\): http:\/\/127\.0\.0\.1:\d+\/mcp/m);
});

for (const era of ['modern', 'legacy']) {
  test(`${era}: mcpwire call reaches the child's tools through serve`, async () => {
    const listed = await call('tools', '--era', era);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /\bwait\b/);
    const called = await call('call', 'pid', '--era', era);
    assert.equal(called.code, 0, called.stderr);
    assert.match(called.stdout, /^\d+\s*$/);
  });
}

test('a child that exits: its stderr in the log, the call failed saying how, then served again', async () => {
  const crashed = await call('call', 'crash', '--era', 'legacy');
  assert.notEqual(crashed.code, 0);
  assert.match(crashed.stderr, /code 3/);
  assert.match(run.stderr(), /about to crash on purpose/);
  assert.match(run.stderr(), /the server behind the bridge is down: [\s\S]*reaching it again in \d+ ms/);
  let again: { code: number | null; stdout: string; stderr: string } | undefined;
  for (let attempt = 0; attempt < 50; attempt++) {
    again = await call('call', 'pid', '--era', 'legacy');
    if (again.code === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(again?.code, 0, again?.stderr);
  assert.equal((await fetch(new URL('/ready', url))).status, 200, 'ready again once the child is up');
});

test('while its child is down, /mcp answers 503 with Retry-After, and /ready 503 with the reason', async () => {
  const marker = join(await mkdtemp(join(tmpdir(), 'mcpwire-once-')), 'started');
  const down = await serveDemo([...SERVE_CHILD, '--once', marker]);
  try {
    const crash = runCli(['call', down.url, 'call', 'crash', '--era', 'legacy']);
    crash.child.stdin.end();
    assert.notEqual(await crash.exit(30_000), 0);
    // Every restart exits at once (the marker exists): the child stays down.
    const response = await fetch(down.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    assert.equal(response.status, 503);
    assert.match(response.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.match(await response.text(), /restarting; retry in \d+ s/);
    // The probes: alive, not ready, and when to ask again.
    const origin = new URL(down.url).origin;
    assert.equal((await fetch(`${origin}/health`)).status, 200);
    const ready = await fetch(`${origin}/ready`);
    assert.equal(ready.status, 503);
    const wait = ready.headers.get('retry-after') ?? '';
    assert.match(wait, /^[1-9]\d*$/);
    assert.deepEqual(await ready.json(), {
      status: 'unavailable',
      reason: 'the server behind this bridge is restarting',
      retryAfterSeconds: Number(wait),
    });
  } finally {
    down.run.child.kill('SIGINT');
    await down.run.exit(10_000).catch(() => {});
  }
});

test('--hide-tool: both eras see neither the tool nor a way to call it; the others are served', async () => {
  const hiding = await serveDemo(['--hide-tool', 'cr*', ...SERVE_CHILD]);
  try {
    for (const era of ['modern', 'legacy']) {
      const listed = await callCli(hiding.url, ['tools', '--era', era]);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /\bpid\b/);
      assert.doesNotMatch(listed.stdout, /\bcrash\b/);
      const hidden = await callCli(hiding.url, ['call', 'crash', '--era', era]);
      assert.notEqual(hidden.code, 0);
      assert.match(hidden.stderr, /Unknown tool: crash/);
    }
    // The child never ran it: it is still the first one, and nothing in the log says it crashed.
    assert.doesNotMatch(hiding.run.stderr(), /about to crash/);
  } finally {
    hiding.run.child.kill('SIGINT');
    await hiding.run.exit(10_000).catch(() => {});
  }
});

test("with --log-format json, the child's stderr and its exit are events", async () => {
  const logged = await serveDemo(['--log-format', 'json', ...SERVE_CHILD]);
  try {
    const crashed = await callCli(logged.url, ['call', 'crash', '--era', 'legacy']);
    assert.notEqual(crashed.code, 0);
    const events = logged.run
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { event?: string; msg?: string; level?: string });
    assert.ok(
      events.some((e) => e.event === 'child.stderr' && e.msg === 'about to crash on purpose'),
      logged.run.stderr(),
    );
    assert.ok(events.some((e) => e.event === 'child' && e.level === 'warn' && /is down/.test(e.msg ?? '')));
  } finally {
    logged.run.child.kill('SIGINT');
    await logged.run.exit(10_000).catch(() => {});
  }
});

test('usage mistakes: a module and a command, --children out of range, --env without =, flags of a command without one', async () => {
  const both = runCli(['serve', './server.js', '--', 'node', 'x.js']);
  assert.equal(await both.exit(10_000), 2);
  assert.match(both.stderr(), /one module .* or a command after --/);
  const children = runCli(['serve', '--children', '0', '--', 'node', 'x.js']);
  assert.equal(await children.exit(10_000), 2);
  assert.match(children.stderr(), /--children must be a whole number from 1 to 64/);
  const env = runCli(['serve', '--env', 'NOVALUE', '--', 'node', 'x.js']);
  assert.equal(await env.exit(10_000), 2);
  assert.match(env.stderr(), /--env takes NAME=VALUE/);
  const stray = runCli(['serve', '--cwd', '/tmp']);
  assert.equal(await stray.exit(10_000), 2);
  assert.match(stray.stderr(), /--cwd is for the command after --/);
  const hide = runCli(['serve', '--hide-tool', 'x']);
  assert.equal(await hide.exit(10_000), 2);
  assert.match(hide.stderr(), /--hide-tool is for the command after --/);
});
