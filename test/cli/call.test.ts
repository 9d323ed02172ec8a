// `mcpwire call` as a person runs it, against `mcpwire serve` (the built CLI on both ends): what it
// prints on stdout and stderr, and its exit status.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { CLI, killCliRuns, runCli } from '../../src/test-support/cli-run.js';
import { freePort } from '../../src/test-support/free-port.js';
import { until } from '../../src/test-support/time-limit.js';

const BOUND = { timeout: 45_000 };

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `mcpwire …args` with stdin closed (no terminal) and collects what it prints; killed past `ms`. */
async function mcpwire(args: string[], ms = 15_000): Promise<Result> {
  const run = runCli(args);
  run.child.stdin.end();
  const code = await run.exit(ms);
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

describe('mcpwire call against mcpwire serve', () => {
  let mcp: string;
  let sse: string;

  before(async () => {
    assert.ok(existsSync(CLI), `${CLI} is missing: run \`npm run build\` first (npm test does)`);
    const server = runCli(['serve', '--port', '0']);
    server.child.stdin.end();
    // Two lines, written one after the other: wait for the second.
    const urls = () => /(http:\/\/127\.0\.0\.1:\d+)\/mcp[\s\S]*\1\/sse/.exec(server.stdout());
    await until(() => urls() !== null, 10_000, 'mcpwire serve to print its URLs');
    const base = urls()![1];
    mcp = `${base}/mcp`;
    sse = `${base}/sse`;
  });

  after(killCliRuns);

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
    assert.match(
      list.stdout,
      /^demo:\/\/readme {2}readme \(About this server\) \[text\/markdown\]\nui:\/\/demo\/counter {2}counter \(Counter view\) \[text\/html;profile=mcp-app\]\n$/,
    );
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

  test('complete: the suggestions for a prompt argument and for a template variable', BOUND, async () => {
    const names = await mcpwire(['call', mcp, 'complete', 'prompt:greet', 'name', 'a']);
    assert.equal(names.code, 0, names.stderr);
    assert.equal(names.stdout, 'Ada\nAlan\n');
    const ids = await mcpwire(['call', mcp, 'complete', 'demo://items/{id}', 'id', '4', '--json']);
    assert.equal(ids.code, 0, ids.stderr);
    assert.deepEqual(JSON.parse(ids.stdout).completion.values, ['42']);
    const unknown = await mcpwire(['call', mcp, 'complete', 'prompt:nope', 'name']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /completing "name" failed: .*nope/);
  });

  test(
    'ping says the era: auto and --era modern find 2026-07-28, --era legacy and /sse the 2025 one',
    BOUND,
    async () => {
      for (const [args, seen] of [
        [[mcp], '2026-07-28, modern era'],
        [[mcp, '--era', 'modern'], '2026-07-28, modern era'],
        [[mcp, '--era', 'legacy'], '2025-11-25, legacy era'],
        [[sse], '2025-11-25, legacy era'],
      ] as const) {
        const run = await mcpwire(['call', ...args, 'ping']);
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout.replace(/\d+ ms/, 'N ms'), `pong (N ms; ${seen})\n`, args.join(' '));
      }
    },
  );

  test('--verbose names the server, the version and the era on stderr', BOUND, async () => {
    const run = await mcpwire(['call', '--verbose', mcp, 'call', 'echo', '{"message":"v"}']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stderr,
      /^mcpwire: connected to mcpwire-demo [\d.]+, protocol 2026-07-28 \(modern era\)\n/,
    );
  });

  test('--era modern with --transport sse is a usage mistake', BOUND, async () => {
    const run = await mcpwire(['call', sse, '--era', 'modern', '--transport', 'sse', 'ping']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /HTTP\+SSE carries only the legacy era/);
  });

  test(
    'listen prints the notifications it asked for as they come, in both eras, until interrupted',
    BOUND,
    async () => {
      for (const era of ['modern', 'legacy']) {
        const listen = runCli(['call', mcp, '--era', era, 'listen', '--resource', 'demo://readme']);
        listen.child.stdin.end();
        await until(
          () => listen.stderr().includes('listening for'),
          10_000,
          `${era}: the listen to be acknowledged`,
        );
        assert.match(listen.stderr(), /listening for updates of demo:\/\/readme/);
        const touch = await mcpwire(['call', mcp, 'call', 'touch_readme']);
        assert.equal(touch.code, 0, touch.stderr);
        await until(
          () => listen.stdout().includes('resource updated: demo://readme'),
          10_000,
          `${era}: the update`,
        );
        listen.child.kill('SIGINT');
        assert.equal(await listen.exit(10_000), 130);
        assert.equal(listen.stdout(), 'resource updated: demo://readme\n');
      }
    },
  );

  test('--roots answers roots/list with the file:// URIs of the paths, one per --roots', BOUND, async () => {
    const run = await mcpwire([
      'call',
      '--roots',
      '/tmp',
      mcp,
      'call',
      'list_roots',
      '--roots',
      '/var',
      '--json',
    ]);
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
    '--elicit-reply answers the server form; without it nor a terminal the form is cancelled',
    BOUND,
    async () => {
      const run = await mcpwire(['call', mcp, 'call', 'elicit_name', '--elicit-reply', '{"name":"Ada"}']);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, 'Hello, Ada\n');
      assert.match(
        run.stderr,
        /the server asks for input: "What is your name\?"; --elicit-reply answered accept/,
      );
      const unanswered = await mcpwire(['call', mcp, 'call', 'elicit_name']);
      assert.equal(unanswered.code, 0, unanswered.stderr);
      assert.equal(unanswered.stdout, 'The user chose to cancel\n');
      assert.match(unanswered.stderr, /no terminal to ask on and no --elicit-reply: answered cancel/);
    },
  );

  test('--log-level sets the level before the action: info messages no longer come', BOUND, async () => {
    const run = await mcpwire(['call', mcp, 'call', 'echo', '{"message":"quiet"}', '--log-level', 'warning']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'Echo: quiet\n');
    assert.equal(run.stderr, '');
  });

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

  test('a call with two bad arguments names both at once, in both eras', BOUND, async () => {
    for (const era of ['legacy', 'modern']) {
      const run = await mcpwire(['call', '--era', era, mcp, 'call', 'add', '{"a":"x","b":"y"}']);
      assert.equal(run.code, 1, run.stderr);
      assert.equal(
        run.stdout,
        'Invalid arguments for tool "add": arguments.a: must be number; arguments.b: must be number\n',
        `${era} era`,
      );
    }
  });

  test('an unknown tool exits 1 with the server message', BOUND, async () => {
    const run = await mcpwire(['call', mcp, 'call', 'nope']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /tool "nope" failed: Unknown tool: nope/);
  });

  test('an unreachable URL exits 1 with a readable message', BOUND, async () => {
    // Nothing listens there: the port was free a moment ago.
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
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
