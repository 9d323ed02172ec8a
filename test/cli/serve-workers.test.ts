// `mcpwire serve --workers N` as an operator runs it (the built command line): several processes on one
// port, a worker that dies is replaced, signals stop them all, and a setup that would split sessions between
// workers is refused. Stateless here, so no Redis is needed; test/cluster/ runs workers sharing Redis.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, test } from 'node:test';
import { killCliRuns, runCli } from '../../src/test-support/cli-run.js';
import { readBody } from '../../src/test-support/http-loopback.js';
import { ACCEPT_BOTH, toolCall } from '../../src/test-support/mcp-http.js';
import { alive } from '../../src/test-support/process-alive.js';
import { type ProcessCluster, startProcessCluster } from '../../src/test-support/process-cluster.js';
import { until } from '../../src/test-support/time-limit.js';

// Starting workers takes seconds on a busy machine (under a load of 4 busy loops on 2 cores a whole test took up to
// 12.6 s): the bounds only cost time when something is wrong, so they are generous.
const MS = 20_000;
const TEST_MS = 60_000;

const started: ProcessCluster[] = [];
after(async () => {
  killCliRuns();
  await Promise.all(started.map((c) => c.stopAll()));
});

async function workers(count: number): Promise<ProcessCluster> {
  const cluster = await startProcessCluster(1, { args: ['--workers', String(count), '--stateless'] });
  started.push(cluster);
  return cluster;
}

/** The pids of the workers the primary logged as serving, in order. */
function workerPids(output: string): number[] {
  return [...output.matchAll(/worker \d+ of \d+ serving \(pid (\d+)\)/g)].map((m) => Number(m[1]));
}

/** `add` over a connection of its own (so each call is accepted anew, by whichever worker): the answer's body. */
function add(port: number, a: number, b: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', accept: ACCEPT_BOTH };
    const req = request(
      { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers, agent: false },
      (res) => readBody(res).then(resolve, reject),
    );
    req.on('error', reject);
    req.end(JSON.stringify(toolCall(1, 'add', { a, b })));
  });
}

test('--workers 2 without --redis is refused (exit 2), saying that sessions would not be shared', async () => {
  const run = runCli(['serve', '--workers', '2', '--port', '0']);
  assert.equal(await run.exit(), 2);
  assert.match(run.stderr(), /--workers 2 needs --redis URL/);
  assert.match(run.stderr(), /sessions/);
  assert.equal(run.stdout(), '');
});

test('--workers must be a positive integer and cannot serve stdio', async () => {
  for (const [args, message] of [
    [['--workers', '0'], /--workers must be an integer from 1 to 256, not "0"/],
    [['--workers', 'two'], /--workers must be an integer/],
    [['--workers', '2', '--stdio'], /cannot serve --stdio/],
  ] as const) {
    const run = runCli(['serve', ...args]);
    assert.equal(await run.exit(), 2, run.stderr());
    assert.match(run.stderr(), message);
  }
});

test('--workers 2: one URL printed once, two worker processes; a killed worker is restarted and the service keeps answering', {
  timeout: TEST_MS,
}, async () => {
  const cluster = await workers(2);
  const primary = cluster.processes[0];
  await until(() => workerPids(primary.output()).length === 2, MS, 'two workers serving');
  assert.equal(primary.output().match(/mcpwire demo server: /g)?.length, 1, primary.output());
  const [first, second] = workerPids(primary.output());
  assert.ok(alive(first) && alive(second));
  assert.notEqual(first, primary.pid);
  assert.match(await add(primary.port, 1, 2), /"structuredContent":\{"sum":3\}/);

  process.kill(first, 'SIGKILL');
  await until(() => workerPids(primary.output()).length === 3, MS, 'the killed worker restarted');
  assert.match(
    primary.output(),
    new RegExp(
      `worker [12] \\(pid ${first}\\) ended unexpectedly \\(killed by SIGKILL\\); restarting it in 100 ms`,
    ),
  );
  const replacement = workerPids(primary.output())[2];
  assert.ok(alive(replacement));
  // Connections are dealt out to the workers in turn: every one of these finds a live worker.
  for (let i = 0; i < 6; i++) assert.match(await add(primary.port, i, 1), new RegExp(`"sum":${i + 1}\\}`));
  // Still one URL line: the replacement does not announce itself again.
  assert.equal(primary.output().match(/mcpwire demo server: /g)?.length, 1);
});

test('--workers 2 --port 0: when every worker dies at once, the replacements serve the same port', {
  timeout: TEST_MS,
}, async () => {
  const cluster = await workers(2);
  const primary = cluster.processes[0];
  await until(() => workerPids(primary.output()).length === 2, MS, 'two workers serving');
  for (const pid of workerPids(primary.output())) process.kill(pid, 'SIGKILL');
  await until(() => workerPids(primary.output()).length === 4, MS, 'both workers replaced');
  assert.match(await add(primary.port, 20, 22), /"sum":42\}/);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`--workers 3: ${signal} to the primary stops every worker, and it exits 0`, {
    timeout: TEST_MS,
  }, async () => {
    const cluster = await workers(3);
    const primary = cluster.processes[0];
    await until(() => workerPids(primary.output()).length === 3, MS, 'three workers serving');
    const pids = workerPids(primary.output());
    assert.deepEqual(await cluster.kill(0, signal), { code: 0, signal: null }, primary.output());
    assert.match(primary.output(), new RegExp(`${signal}: stopping 3 worker\\(s\\)`));
    await until(() => pids.every((pid) => !alive(pid)), MS, 'every worker gone');
  });
}

test('--workers on a port already taken: the workers fail to start and the primary exits 1 at once', {
  timeout: TEST_MS,
}, async () => {
  const cluster = await workers(1);
  const run = runCli(['serve', '--workers', '2', '--stateless', '--port', String(cluster.processes[0].port)]);
  assert.equal(await run.exit(MS), 1, run.stderr());
  assert.match(run.stderr(), /EADDRINUSE/);
  assert.match(run.stderr(), /failed before serving/);
});

/** One 2026-07-28 tools/call over a connection of its own: the parsed JSON-RPC answer. */
function modernCall(
  port: number,
  id: number,
  name: string,
  extra: Record<string, unknown> = {},
): Promise<any> {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
  };
  const headers = {
    'content-type': 'application/json',
    accept: ACCEPT_BOTH,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': name,
  };
  const body = {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: {}, ...extra, _meta: meta },
  };
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers, agent: false },
      (res) => readBody(res).then((text) => resolve(JSON.parse(text)), reject),
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

test('--workers 2: a 2026-07-28 elicitation round started on one worker is finished on the other (one sealing key)', {
  timeout: TEST_MS,
}, async () => {
  const cluster = await workers(2);
  const primary = cluster.processes[0];
  await until(() => workerPids(primary.output()).length === 2, MS, 'two workers serving');
  // Connections are dealt out in turn, so each retry below is accepted by the other worker than its round.
  for (let i = 0; i < 4; i++) {
    const round = (await modernCall(primary.port, 2 * i, 'elicit_name')).result;
    assert.equal(round.resultType, 'input_required');
    const [key] = Object.keys(round.inputRequests);
    const answer = await modernCall(primary.port, 2 * i + 1, 'elicit_name', {
      inputResponses: { [key]: { action: 'accept', content: { name: `Ada ${i}` } } },
      requestState: round.requestState,
    });
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    assert.equal(answer.result.resultType, 'complete');
    assert.match(answer.result.content[0].text, new RegExp(`Ada ${i}`));
  }
});
