// The built `mcpwire` command as a user runs it: stdout carries only protocol messages, logs go to
// stderr, and exit codes say what happened.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { CLI, killCliRuns, runCli, serveDemo } from '../../src/test-support/cli-run.js';
import { until } from '../../src/test-support/time-limit.js';

const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

before(() => {
  assert.ok(existsSync(CLI), `${CLI} is missing: run \`npm run build\` first (npm test does)`);
});

after(killCliRuns);

/** Bounds the waits that count the start of the command: seconds on a loaded machine. */
const LIMIT = 20_000;

/** The JSON-RPC messages a `serve --stdio` run printed, one a line. */
function printed(stdout: string): {
  jsonrpc: string;
  id?: unknown;
  method?: string;
  params?: { _meta?: Record<string, unknown> };
  result?: Record<string, unknown>;
  error?: { code: number };
}[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

test('serve --stdio: stdout holds only JSON-RPC messages, logs go to stderr, exit 0 when stdin ends', async () => {
  const run = runCli(['serve', '--stdio']);
  const lines = [
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'cli-test', version: '1' },
      },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' } } },
  ].map((m) => JSON.stringify(m));
  run.child.stdin.write(`${lines.join('\n')}\nthis is not json\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n`);

  const messages = () => printed(run.stdout());
  // Requests run concurrently: the echo may be answered after the ping.
  const answered = () => [1, 2, 3].every((id) => messages().some((m) => m.id === id));
  await until(() => answered() && messages().some((m) => m.error !== undefined), LIMIT, 'every answer');

  // Every stdout line is one JSON-RPC message (JSON.parse above would have thrown otherwise).
  const received = messages();
  for (const message of received) assert.equal(message.jsonrpc, '2.0', JSON.stringify(message));
  const byId = (id: unknown) => received.find((m) => m.id === id && m.result !== undefined);
  const initialized = byId(1)?.result as
    | { protocolVersion?: string; serverInfo?: { name?: string } }
    | undefined;
  assert.equal(initialized?.protocolVersion, '2025-11-25');
  assert.equal(initialized?.serverInfo?.name, 'mcpwire-demo');
  assert.deepEqual(byId(2)?.result, { content: [{ type: 'text', text: 'Echo: hi' }] });
  assert.deepEqual(byId(3)?.result, {});
  const parseErrors = received.filter((m) => m.error !== undefined);
  assert.equal(parseErrors.length, 1);
  assert.equal(parseErrors[0]?.id, null);
  assert.equal(parseErrors[0]?.error?.code, -32700);
  assert.match(run.stderr(), /serving the demo server on stdio/);
  assert.match(run.stderr(), /Parse error/);

  run.child.stdin.end();
  assert.equal(await run.exit(), 0);
  assert.doesNotMatch(run.stdout(), /serving|mcpwire:/);
});

test('serve --stdio: a first message claiming 2026-07-28 makes the connection modern, listen included', async () => {
  const run = runCli(['serve', '--stdio']);
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const send = (id: number, method: string, params: Record<string, unknown> = {}) =>
    run.child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } })}\n`,
    );
  const messages = () => printed(run.stdout());
  const tagged = () =>
    messages().filter((m) => m.params?._meta?.['io.modelcontextprotocol/subscriptionId'] === 2);

  send(1, 'server/discover');
  send(2, 'subscriptions/listen', { notifications: { toolsListChanged: true } });
  await until(
    () => messages().some((m) => m.id === 1) && tagged().length === 1,
    LIMIT,
    'discover and the ack',
  );
  const discover = messages().find((m) => m.id === 1)?.result;
  assert.deepEqual(discover?.supportedVersions, ['2026-07-28']);
  assert.equal(tagged()[0]?.method, 'notifications/subscriptions/acknowledged');

  send(3, 'tools/call', { name: 'toggle_tool', arguments: {} });
  await until(() => tagged().length === 2, 5000, 'the tool list change on the listen stream');
  assert.equal(tagged()[1]?.method, 'notifications/tools/list_changed');

  run.child.stdin.end();
  assert.equal(await run.exit(), 0);
});

test('serve over HTTP: prints the URL, answers initialize with a session, shuts down on SIGINT', async () => {
  const run = runCli(['serve', '--port', '0']);
  run.child.stdin.end();
  // Two lines, written one after the other: wait for the second.
  await until(() => /\/sse\n/.test(run.stdout()), LIMIT, 'both URLs on stdout');
  const url = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(run.stdout())![0];
  assert.match(run.stdout(), /legacy HTTP\+SSE: http:\/\/127\.0\.0\.1:\d+\/sse/);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
  assert.equal(res.status, 200);
  assert.ok(res.headers.get('mcp-session-id'));
  assert.match(await res.text(), /"serverInfo":\{"name":"mcpwire-demo"/);
  run.child.kill('SIGINT');
  assert.equal(await run.exit(), 0);
});

test('serve --cors-origin (repeatable): preflights of /mcp and /messages answered for those origins only', async () => {
  const origins = ['https://app.example.com', 'http://127.0.0.1:5173'];
  const { run, url } = await serveDemo(origins.flatMap((origin) => ['--cors-origin', origin]));
  const preflight = (target: string, origin: string) =>
    fetch(target, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
  try {
    for (const origin of origins) {
      for (const target of [url, url.replace(/\/mcp$/, '/messages')]) {
        const response = await preflight(target, origin);
        assert.equal(response.status, 204, `${target} from ${origin}`);
        assert.equal(response.headers.get('access-control-allow-origin'), origin);
      }
    }
    // A page of a listed origin that is not loopback gets through the DNS-rebinding check, and can read the answer.
    const answered = await fetch(url, {
      method: 'POST',
      headers: {
        origin: origins[0],
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    assert.equal(answered.headers.get('access-control-allow-origin'), origins[0]);
    await answered.body?.cancel();
    const refused = await preflight(url, 'http://127.0.0.1:4000');
    assert.equal(refused.status, 403);
    assert.equal(refused.headers.get('access-control-allow-origin'), null);
    await refused.body?.cancel();
  } finally {
    run.child.kill('SIGINT');
    assert.equal(await run.exit(), 0);
  }
});

test('serve refuses a bad --port with exit 2 and the reason', async () => {
  const run = runCli(['serve', '--port', 'abc']);
  assert.equal(await run.exit(), 2);
  assert.match(run.stderr(), /--port must be an integer/);
});

test('--version prints the package version', async () => {
  const run = runCli(['--version']);
  assert.equal(await run.exit(), 0);
  assert.equal(run.stdout(), `${PACKAGE.version}\n`);
});

test('an unknown command exits 2 and names it on stderr', async () => {
  const run = runCli(['frobnicate']);
  assert.equal(await run.exit(), 2);
  assert.match(run.stderr(), /Unknown command "frobnicate"/);
  assert.equal(run.stdout(), '');
});
