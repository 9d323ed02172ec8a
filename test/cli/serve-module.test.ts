// `mcpwire serve ./module.js` as a user runs it (the built command line): the module's Server, exported as
// itself or made by a function, served over HTTP in both eras and over stdio, from several workers that share
// its requestState keys; a module that cannot be served is refused with exit 1, saying what was found and what
// was expected.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '../../src/client/client.js';
import { connectStdio } from '../../src/client/negotiation/connect-stdio.js';
import { connectUrl } from '../../src/client/negotiation/connect-url.js';
import { CLI, killCliRuns, runCli, serveDemo } from '../../src/test-support/cli-run.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'mcpwire-serve-module-'));
after(() => {
  killCliRuns();
  rmSync(scratch, { recursive: true, force: true });
});

/** A client that answers the greet tool's question with `name`. */
function greetingClient(name: string, era: 'modern' | 'legacy'): Client {
  return new Client(
    { name: 'test', version: '1.0.0' },
    { era, elicitation: { form: async () => ({ action: 'accept', content: { name } }) } },
  );
}

async function greet(url: string, era: 'modern' | 'legacy', name: string): Promise<unknown> {
  const session = await connectUrl(greetingClient(name, era), url);
  try {
    assert.equal(session.era, era);
    return (await session.callTool('greet', {})).content;
  } finally {
    await session.close();
  }
}

async function stop(run: {
  child: { kill(signal: NodeJS.Signals): boolean };
  exit(ms?: number): Promise<number | null>;
}) {
  run.child.kill('SIGTERM');
  assert.equal(await run.exit(15_000), 0);
}

describe('mcpwire serve MODULE', () => {
  for (const [file, name] of [
    ['greeter.mjs', 'greeter'],
    ['greeter-factory.mjs', 'greeter-factory'],
  ] as const) {
    test(`${file}: its server over HTTP in both eras, announced by its name`, async () => {
      const { run, url } = await serveDemo([join(FIXTURES, file)]);
      assert.match(run.stdout(), new RegExp(`^${name} \\(.*${file}\\): http://`));
      assert.deepEqual(await greet(url, 'modern', 'Ada'), [{ type: 'text', text: 'Hello, Ada' }]);
      assert.deepEqual(await greet(url, 'legacy', 'Grace'), [{ type: 'text', text: 'Hello, Grace' }]);
      await stop(run);
    });
  }

  test('--stdio serves the module on stdin/stdout', async () => {
    const session = await connectStdio(greetingClient('Lin', 'modern'), {
      command: process.execPath,
      args: [CLI, 'serve', '--stdio', join(FIXTURES, 'greeter-factory.mjs')],
    });
    try {
      assert.deepEqual((await session.callTool('greet', {})).content, [{ type: 'text', text: 'Hello, Lin' }]);
    } finally {
      await session.close();
    }
  });

  for (const file of ['greeter.mjs', 'greeter-factory.mjs']) {
    test(`${file} from 2 workers: a 2026 round's retry is opened by whichever worker it reaches`, async () => {
      // node:cluster hands connections to workers in turn, so of these rounds' retries (each on a connection of
      // its own) some reach the other worker: with a key per process they would be refused.
      const { run, url } = await serveDemo(['--workers', '2', '--stateless', join(FIXTURES, file)]);
      for (const name of ['A', 'B', 'C', 'D', 'E', 'F']) {
        assert.deepEqual(await greet(url, 'modern', name), [{ type: 'text', text: `Hello, ${name}` }]);
      }
      await stop(run);
    });
  }

  test('a TypeScript module: served where Node strips types, else refused naming the fix', async () => {
    const typescript = (process.features as { typescript?: unknown }).typescript;
    const module = join(FIXTURES, 'greeter.ts');
    if (typescript) {
      const { run, url } = await serveDemo([module]);
      const session = await connectUrl(new Client({ name: 'test', version: '1.0.0' }), url);
      assert.deepEqual((await session.callTool('greet', {})).content, [
        { type: 'text', text: 'Hello from TypeScript' },
      ]);
      await session.close();
      await stop(run);
      return;
    }
    const run = runCli(['serve', '--port', '0', module]);
    assert.equal(await run.exit(10_000), 1);
    assert.match(
      run.stderr(),
      /greeter\.ts is TypeScript, which Node v\d+\.\d+\.\d+ does not run by itself: use Node 22\.18/,
    );
  });

  /** Writes `source` as a module of the scratch folder and runs `mcpwire serve` on it: exit code and stderr. */
  async function refused(name: string, source: string): Promise<string> {
    const path = join(scratch, name);
    writeFileSync(path, source);
    const run = runCli(['serve', '--port', '0', path]);
    assert.equal(await run.exit(10_000), 1, run.stderr());
    assert.equal(run.stdout(), '');
    return run.stderr();
  }

  test('a module that cannot be served: exit 1, what was found and what is expected', async () => {
    const expected = /expects a Server, or a function that returns one, as its default export or as "server"/;
    let stderr = await refused('named.mjs', 'export const tools = 1; export function helper() {}\n');
    assert.match(stderr, /named\.mjs exports "helper", "tools"; mcpwire serve expects/);
    stderr = await refused('number.mjs', 'export default 42;\n');
    assert.match(stderr, /its default export is a number;/);
    assert.match(stderr, expected);
    stderr = await refused('class.mjs', 'export default class Server {}\n');
    assert.match(stderr, /its default export is the class Server;/);
    stderr = await refused('returns.mjs', 'export const server = () => ({ tools: [] });\n');
    assert.match(stderr, /the function of its export "server" returned a plain object;/);
    stderr = await refused('throws.mjs', "export default () => { throw new Error('no database'); };\n");
    assert.match(stderr, /the function of its default export threw: no database/);
    stderr = await refused('broken.mjs', 'export default {;\n');
    assert.match(stderr, /broken\.mjs did not load: /);
    stderr = await refused('server.json', '{}\n');
    assert.match(stderr, /loads a JavaScript module \(\.js, \.mjs, \.cjs\).*not a "\.json"/);
    stderr = await refused('commonjs.cjs', 'module.exports = { server: 7 };\n');
    assert.match(stderr, /commonjs\.cjs: its export "server" is a number;/);
    const run = runCli(['serve', '--port', '0', join(scratch, 'missing.mjs')]);
    assert.equal(await run.exit(10_000), 1);
    assert.match(run.stderr(), /missing\.mjs: no such file/);
  });

  test("a Server of another copy of mcpwire is refused, saying to run that copy's command", async () => {
    // A copy of the built library beside the repository's node_modules (so its own imports resolve).
    const copy = fileURLToPath(new URL('../../.out/serve-module-copy/', import.meta.url));
    rmSync(copy, { recursive: true, force: true });
    mkdirSync(copy, { recursive: true });
    cpSync(fileURLToPath(new URL('../../dist/', import.meta.url)), join(copy, 'dist'), { recursive: true });
    writeFileSync(join(copy, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(
      join(copy, 'copied.mjs'),
      "import { Server } from './dist/server/index.js';\nexport default new Server({ name: 'c', version: '1' });\n",
    );
    const run = runCli(['serve', '--port', '0', join(copy, 'copied.mjs')]);
    assert.equal(await run.exit(10_000), 1);
    assert.match(
      run.stderr(),
      /a Server of another copy of mcpwire than this command's: run the mcpwire installed/,
    );
    rmSync(copy, { recursive: true, force: true });
  });

  test('usage: one module, or a command after -- (not both); --watch is for a module', async () => {
    let run = runCli(['serve', 'a.mjs', 'b.mjs']);
    assert.equal(await run.exit(), 2);
    assert.match(run.stderr(), /serve takes one module .* or a command after -- .*, not a\.mjs b\.mjs/);
    run = runCli(['serve', '--watch', '--', 'node', 'server.js']);
    assert.equal(await run.exit(), 2);
    assert.match(
      run.stderr(),
      /--watch reloads a module of yours; a command after -- is started again when it exits/,
    );
  });
});
