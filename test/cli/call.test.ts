// `mcpwire call` as a person runs it, against `mcpwire serve` (the built CLI on both ends): what it
// prints on stdout and stderr, and its exit status.
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const BOUND = { timeout: 20_000 };

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Every child started, so that a failed test leaves none running. */
const children = new Set<ChildProcessWithoutNullStreams>();

function start(args: string[]): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: 'pipe' });
  children.add(child);
  child.once('close', () => children.delete(child));
  return child;
}

/** Runs `mcpwire …args` with stdin closed (no terminal) and collects what it prints; killed past `ms`. */
function mcpwire(args: string[], ms = 15_000): Promise<Result> {
  const child = start(args);
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mcpwire ${args.join(' ')} did not exit within ${ms} ms; stderr:\n${stderr}`));
    }, ms);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A TCP port nothing listens on (it was free a moment ago). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

describe('mcpwire call against mcpwire serve', () => {
  let server: ChildProcessWithoutNullStreams;
  let mcp: string;
  let sse: string;

  before(async () => {
    assert.ok(existsSync(CLI), `${CLI} is missing: run \`npm run build\` first (npm test does)`);
    server = start(['serve', '--port', '0']);
    server.stdin.end();
    let out = '';
    server.stdout.setEncoding('utf8');
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`mcpwire serve printed no URL: ${out}`)), 10_000);
      server.stdout.on('data', (chunk: string) => {
        out += chunk;
        const urls = /(http:\/\/127\.0\.0\.1:\d+)\/mcp[\s\S]*\1\/sse/.exec(out);
        if (urls === null) return;
        clearTimeout(timer);
        mcp = `${urls[1]}/mcp`;
        sse = `${urls[1]}/sse`;
        resolve();
      });
    });
  });

  after(() => {
    for (const child of children) child.kill('SIGKILL');
  });

  test('tools: name, description and required arguments of each', BOUND, async () => {
    const run = await mcpwire(['call', mcp, 'tools']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^echo: Returns the message it is given\.\n {2}required: message \(string\)\n/);
    assert.match(run.stdout, /\nadd: Adds two numbers\.\n {2}required: a \(number\), b \(number\)\n/);
    assert.match(run.stdout, /\nlong_running: /);
  });

  test('call echo prints the text content; the log message goes to stderr', BOUND, async () => {
    const run = await mcpwire(['call', mcp, 'call', 'echo', '{"message":"hi"}']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'Echo: hi\n');
    assert.match(run.stderr, /\[info\] demo: echo called with "hi"/);
  });

  test('call add --json prints the raw result, structuredContent included', BOUND, async () => {
    const run = await mcpwire(['call', mcp, 'call', 'add', '{"a":2,"b":3}', '--json']);
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout) as { structuredContent: unknown; content: unknown };
    assert.deepEqual(result.structuredContent, { sum: 5 });
    assert.deepEqual(result.content, [{ type: 'text', text: '5' }]);
  });

  test('resources, then read demo://readme', BOUND, async () => {
    const list = await mcpwire(['call', mcp, 'resources']);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^demo:\/\/readme {2}readme \(About this server\) \[text\/markdown\]\n$/);
    const read = await mcpwire(['call', mcp, 'read', 'demo://readme']);
    assert.equal(read.code, 0, read.stderr);
    assert.match(read.stdout, /^# mcpwire demo\n/);
  });

  test('templates', BOUND, async () => {
    const run = await mcpwire(['call', mcp, 'templates']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^demo:\/\/items\/\{id\} {2}item/);
  });

  test('prompts, then prompt greet \'{"name":"Ada"}\'', BOUND, async () => {
    const list = await mcpwire(['call', mcp, 'prompts']);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^greet: .*\n {2}arguments: name\* \(Who to greet\)\n/);
    const run = await mcpwire(['call', mcp, 'prompt', 'greet', '{"name":"Ada"}']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'Greeting for Ada\n\nuser: Please greet Ada warmly.\n');
  });

  test('ping', BOUND, async () => {
    const run = await mcpwire(['call', mcp, 'ping']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^pong \(\d+ ms\)\n$/);
  });

  test('--roots answers roots/list with the file:// URIs of the paths', BOUND, async () => {
    const run = await mcpwire(['call', mcp, 'call', 'list_roots', '--roots', '/tmp', '/var', '--json']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout).structuredContent, { roots: ['file:///tmp', 'file:///var'] });
  });

  test('--sampling-reply answers the server sampling request', BOUND, async () => {
    const run = await mcpwire([
      'call',
      mcp,
      'call',
      'sample',
      '{"prompt":"hi"}',
      '--sampling-reply',
      'hello',
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'hello\n');
  });

  test(
    'without --sampling-reply nor a terminal, sampling is refused and the failure says so',
    BOUND,
    async () => {
      const run = await mcpwire(['call', mcp, 'call', 'sample', '{"prompt":"hi"}']);
      assert.equal(run.code, 1);
      // The demo tool passes the client's refusal on as the call's error.
      assert.match(run.stderr, /User rejected sampling request: .*no --sampling-reply and has no terminal/);
    },
  );

  test(
    '--transport sse speaks the legacy transport to /sse; auto falls back there by itself',
    BOUND,
    async () => {
      for (const flags of [['--transport', 'sse'], []]) {
        const run = await mcpwire(['call', sse, 'call', 'echo', '{"message":"old"}', ...flags]);
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout, 'Echo: old\n');
      }
    },
  );

  test('a command after -- runs over stdio', BOUND, async () => {
    const run = await mcpwire([
      'call',
      'call',
      'echo',
      '{"message":"piped"}',
      '--',
      process.execPath,
      CLI,
      'serve',
      '--stdio',
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'Echo: piped\n');
  });

  test(
    'an invalid JSON argument exits 2 naming the argument and the parse error, before connecting',
    BOUND,
    async () => {
      const run = await mcpwire(['call', mcp, 'call', 'echo', '{message:1}']);
      assert.equal(run.code, 2);
      assert.equal(run.stdout, '');
      assert.match(
        run.stderr,
        /the arguments of tool "echo" are not valid JSON \(\{message:1\}\): .*position 1/,
      );
    },
  );

  test('an unknown tool exits 1 with the server message', BOUND, async () => {
    const run = await mcpwire(['call', mcp, 'call', 'nope']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /tool "nope" failed: Unknown tool: nope/);
  });

  test('an unreachable URL exits 1 with a readable message', BOUND, async () => {
    const url = `http://127.0.0.1:${await closedPort()}/mcp`;
    const run = await mcpwire(['call', url, 'ping']);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, new RegExp(`^mcpwire: Could not connect to ${url}: .*ECONNREFUSED`));
  });

  test(
    'long_running off a terminal: the result only on stdout, no progress bar anywhere',
    BOUND,
    async () => {
      const run = await mcpwire(['call', mcp, 'call', 'long_running', '{"duration":0.2,"steps":4}']);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, 'Long-running operation completed: 4 steps in 0.2 s\n');
      for (const drawing of ['\r', '\x1b', '[##']) assert.ok(!run.stderr.includes(drawing), run.stderr);
    },
  );
});
