// The official TypeScript SDK v2 fixture (src/test-support/official-v2-server.ts) reached two more ways a
// user reaches a server: mcpwire's Client over stdio (the SDK's own `serveStdio`, dual and modern-only),
// and the built `mcpwire call` CLI over HTTP, with a recording proxy to show what era it spoke.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { spawnStdio } from '../../src/client/stdio/stdio-client-connection.js';
import { killCliRuns, runCli } from '../../src/test-support/cli-run.js';
import { type LoopbackServer, listenLoopback } from '../../src/test-support/http-loopback.js';
import {
  type OfficialV2Server,
  officialV2StdioCommand,
  startOfficialV2Server,
} from '../../src/test-support/official-v2-server.js';
import { until, within } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

const LIMIT = 20_000;

describe('mcpwire Client over stdio ↔ official v2 serveStdio', { timeout: 90_000 }, () => {
  const errors: Error[] = [];
  const client = new Client(
    { name: 'mcpwire-vs-official-v2-stdio', version: '1.0.0' },
    {
      requestTimeoutMs: LIMIT,
      // tsx compiles the fixture on its first message: more than the default 5 s on a loaded machine.
      probeTimeoutMs: LIMIT,
      elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) },
      onerror: (err) => errors.push(err),
    },
  );

  for (const rejectLegacy of [false, true]) {
    test(`${rejectLegacy ? 'modern-only (--reject-legacy)' : 'dual'}: goes modern, calls echo and ask_name`, async () => {
      errors.length = 0;
      const connection = spawnStdio({ ...officialV2StdioCommand({ rejectLegacy }), closeGraceMs: 1000 });
      const session = await within(client.connect(connection), LIMIT, 'connect over stdio');
      try {
        assert.equal(session.era, 'modern');
        assert.equal(session.protocolVersion, '2026-07-28');
        assert.equal(session.serverInfo.name, 'official-v2-fixture');
        const echo = await within(session.callTool('echo', { message: 'piped' }), LIMIT, 'echo');
        assert.equal(toolText(echo), 'piped');
        assert.equal(toolText(await within(session.callTool('ask_name'), LIMIT, 'ask_name')), 'Hello Ada');
      } finally {
        await within(session.close(), LIMIT, 'close');
      }
      assert.deepEqual(errors, []);
    });
  }
});

/** Forwards to `target` and records the JSON-RPC method of each request it passes on (`GET` for a GET). */
async function recordingProxy(target: URL): Promise<LoopbackServer & { url: string; seen: string[] }> {
  const seen: string[] = [];
  const proxy = await listenLoopback(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    seen.push(req.method === 'POST' ? (JSON.parse(body.toString()).method ?? 'response') : req.method!);
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode!, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    upstream.end(body);
  });
  return Object.assign(proxy, { url: `http://127.0.0.1:${proxy.port}/mcp`, seen });
}

describe('mcpwire call (the built CLI) ↔ official v2 server, modern-only', { timeout: 90_000 }, () => {
  let server: OfficialV2Server;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  // The CLI keeps OAuth sign-ins under XDG_CONFIG_HOME: a folder of this test's own.
  const config = mkdtempSync(join(tmpdir(), 'mcpwire-iop-'));
  const env = { XDG_CONFIG_HOME: config };

  before(async () => {
    server = await startOfficialV2Server({ legacy: 'reject' });
    proxy = await recordingProxy(new URL(server.url));
  });
  after(async () => {
    killCliRuns();
    await proxy?.close();
    await server?.close();
    rmSync(config, { recursive: true, force: true });
  });

  test('call <url> tools lists the fixture tools, having spoken the modern era only', async () => {
    proxy.seen.length = 0;
    const run = runCli(['call', proxy.url, 'tools', '--json'], env);
    run.child.stdin.end();
    assert.equal(await run.exit(LIMIT), 0, run.stderr());
    const names = JSON.parse(run.stdout()).tools.map((t: { name: string }) => t.name);
    assert.ok(names.includes('echo') && names.includes('echo_region'), names.join());
    assert.equal(proxy.seen[0], 'server/discover');
    assert.ok(proxy.seen.includes('tools/list'), proxy.seen.join());
    assert.ok(!proxy.seen.includes('initialize') && !proxy.seen.includes('GET'), proxy.seen.join());
  });

  test('call <url> call echo \'{"message":"hi"}\' prints hi', async () => {
    proxy.seen.length = 0;
    const run = runCli(['call', proxy.url, 'call', 'echo', '{"message":"hi"}'], env);
    run.child.stdin.end();
    assert.equal(await run.exit(LIMIT), 0, run.stderr());
    assert.equal(run.stdout().trim(), 'hi');
    assert.ok(!proxy.seen.includes('initialize') && !proxy.seen.includes('GET'), proxy.seen.join());
  });

  test('--era legacy is refused by this modern-only server, with what it answered, and no HTTP+SSE try', async () => {
    proxy.seen.length = 0;
    const run = runCli(['call', proxy.url, '--era', 'legacy', 'ping'], env);
    run.child.stdin.end();
    assert.equal(await run.exit(LIMIT), 1);
    assert.match(
      run.stderr(),
      /Could not connect to .*-32022: an error only a 2026-07-28 or later server sends \(it serves 2026-07-28\), so the legacy HTTP\+SSE transport was not tried/,
    );
    assert.deepEqual(proxy.seen, ['initialize']);
  });

  test('listen prints the list change the server announced, until Ctrl-C', async () => {
    const run = runCli(['call', proxy.url, '--era', 'modern', 'listen', '--tools'], env);
    run.child.stdin.end();
    await until(() => run.stderr().includes('listening for'), LIMIT, 'the listen acknowledgement');
    server.notify.toolsChanged();
    await until(() => run.stdout().includes('tools changed'), LIMIT, 'the list change');
    run.child.kill('SIGINT');
    assert.equal(await run.exit(LIMIT), 130);
    assert.equal(run.stdout(), 'tools changed\n');
  });
});
