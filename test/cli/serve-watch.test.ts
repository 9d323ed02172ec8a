// `mcpwire serve --watch ./server.mjs` as a developer runs it (the built command line): a change to the
// module's folder reloads it while a call in flight finishes on the version it began on, a reload that fails to
// load leaves the previous version serving, and --watch without a module or with --stdio is a usage error.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, get, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '../../src/client/client.js';
import { connectUrl } from '../../src/client/negotiation/connect-url.js';
import { killCliRuns, runCli, serveDemo } from '../../src/test-support/cli-run.js';
import { until } from '../../src/test-support/time-limit.js';

// Inside the package, so that the module's `mcpwire/server` resolves to this build.
const folder = fileURLToPath(new URL(`../../.out/serve-watch-${process.pid}/`, import.meta.url));
after(() => {
  killCliRuns();
  rmSync(folder, { recursive: true, force: true });
});

/** The module: `hello` greets with `greeting`; `slow` answers once it has told its progress and waited 1 s. */
function writeModule(greeting: string): void {
  writeFileSync(
    join(folder, 'server.mjs'),
    `import { Server } from 'mcpwire/server';
export default (deployment) => {
  const server = new Server({ name: 'watched', version: '1.0.0' }, { ...deployment });
  const empty = { type: 'object', properties: {} };
  server.tool({ name: 'hello', inputSchema: empty }, async () => ({ content: [{ type: 'text', text: ${JSON.stringify(greeting)} }] }));
  server.tool({ name: 'slow', inputSchema: empty }, async (_args, ctx) => {
    await ctx.sendProgress(1, 2, 'started');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return { content: [{ type: 'text', text: ${JSON.stringify(`slow ${greeting}`)} }] };
  });
  return server;
};
`,
  );
}

async function call(url: string, tool: string): Promise<string> {
  const session = await connectUrl(new Client({ name: 'test', version: '1.0.0' }), url);
  try {
    const result = await session.callTool(tool, {});
    return (result.content[0] as { text: string }).text;
  } finally {
    await session.close();
  }
}

/** GET `url` through `agent`, the answer read to its end. */
function fetchThrough(agent: Agent, url: string): Promise<{ res: IncomingMessage; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ res, reused: req.reusedSocket }));
    });
    req.on('error', reject);
  });
}

test('--watch: a change reloads the module; a call in flight finishes; a broken edit leaves the last version serving', async () => {
  mkdirSync(folder, { recursive: true });
  writeModule('Hello');
  const { run, url } = await serveDemo(['--watch', join(folder, 'server.mjs')]);
  assert.equal(await call(url, 'hello'), 'Hello');
  // A keep-alive connection open to the worker that the change replaces.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const elsewhere = new URL('/elsewhere', url).href;
  assert.equal((await fetchThrough(agent, elsewhere)).res.statusCode, 404);

  // A call in flight when the module changes is answered by the worker it reached, before that one stops.
  const session = await connectUrl(new Client({ name: 'test', version: '1.0.0' }), url);
  let started!: () => void;
  const progressed = new Promise<void>((resolve) => {
    started = resolve;
  });
  const slow = session.callTool('slow', {}, { onprogress: () => started() });
  await progressed;
  writeModule('Hi');
  await until(() => /server\.mjs changed: reloading/.test(run.stderr()), 10_000, 'the change to be seen');
  // The replaced worker answers what still arrives on its open connection, and closes it: the client's next
  // request opens one to its successor. (Dropping it instead could lose a request sent at that moment.)
  await until(() => /replaced by a new worker/.test(run.stderr()), 15_000, 'the old worker to retire');
  const handed = await fetchThrough(agent, elsewhere);
  assert.deepEqual(
    [handed.reused, handed.res.statusCode, handed.res.headers.connection],
    [true, 404, 'close'],
  );
  agent.destroy();
  // The new worker serves before the old one stops; until then a call may still reach the old one.
  const deadline = Date.now() + 15_000;
  while ((await call(url, 'hello')) !== 'Hi') {
    assert.ok(Date.now() < deadline, `the new version did not answer; stderr:\n${run.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.deepEqual((await slow).content, [{ type: 'text', text: 'slow Hello' }]);
  await session.close();

  // An edit that does not load: the new worker ends before serving, and the version before it still answers.
  writeFileSync(join(folder, 'server.mjs'), 'export default (;\n');
  await until(
    () => /ended before serving .*the previous one still serves/.test(run.stderr()),
    15_000,
    'the failed reload',
  );
  assert.equal(await call(url, 'hello'), 'Hi');

  run.child.kill('SIGTERM');
  assert.equal(await run.exit(20_000), 0, run.stderr());
});

test('--watch needs a module, and does not reload a --stdio server', async () => {
  let run = runCli(['serve', '--watch']);
  assert.equal(await run.exit(), 2);
  assert.match(run.stderr(), /--watch reloads a module of yours when it changes: give its path/);
  run = runCli(['serve', '--watch', '--stdio', 'server.mjs']);
  assert.equal(await run.exit(), 2);
  assert.match(
    run.stderr(),
    /--watch reloads an HTTP server; over --stdio a reload would end the client's session/,
  );
});
