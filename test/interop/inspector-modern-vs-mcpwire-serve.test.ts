// The MCP Inspector's CLI (2.12.0, a 2026-07-28 client no one here wrote) against `mcpwire serve`: in the
// modern era, pinned (`--protocol-era modern` fails rather than fall back), and as a control in the legacy era.
// It needs Node >= 22.19: it runs on the Node 22 binary kept in tools/conformance, beside it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CLI, type CliRun, killCliRuns, serveDemo } from '../../src/test-support/cli-run.js';
import { toolText } from '../../src/test-support/tool-text.js';

const TOOLS = fileURLToPath(new URL('../../tools/conformance/node_modules/', import.meta.url));
const NODE22 = join(TOOLS, '.bin', 'node');
const INSPECTOR = join(
  TOOLS,
  '@modelcontextprotocol',
  'inspector',
  'clients',
  'launcher',
  'build',
  'index.js',
);
const RUN_MS = 30_000;

interface InspectorRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `inspector --cli url …args --format json` with HOME in `home` (it writes ~/.mcp-inspector). Its whole
 * process group is killed once it has exited or after 30 s, so nothing it started outlives the test.
 */
function inspector(home: string, url: string, args: string[]): Promise<InspectorRun> {
  const child = spawn(NODE22, [INSPECTOR, '--cli', url, ...args, '--format', 'json'], {
    env: { PATH: process.env.PATH ?? '', HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  const timer = setTimeout(killGroup, RUN_MS);
  return new Promise<InspectorRun>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  }).finally(() => {
    clearTimeout(timer);
    killGroup();
  });
}

/** The JSON-RPC result the Inspector printed, once it exited 0; otherwise fails with what it said. */
function resultOf(run: InspectorRun): Record<string, unknown> {
  assert.equal(run.code, 0, `the Inspector exited ${run.code}: ${run.stderr || run.stdout}`);
  return (JSON.parse(run.stdout) as { result: Record<string, unknown> }).result;
}

const toolNames = (result: Record<string, unknown>) =>
  (result.tools as { name: string }[]).map((t) => t.name);

const skip = existsSync(NODE22)
  ? false
  : `no Node 22 binary at ${NODE22}: run \`npm ci --prefix tools/conformance\` (the Inspector needs Node >= 22.19)`;

describe('MCP Inspector 2.12.0 CLI ↔ mcpwire serve', { skip }, () => {
  let serve: CliRun;
  let url: string;
  let home: string;

  before(async () => {
    assert.ok(existsSync(CLI), `${CLI} is missing: run \`npm run build\` first (npm test does)`);
    assert.ok(existsSync(INSPECTOR), `${INSPECTOR} is missing: run \`npm ci --prefix tools/conformance\``);
    home = mkdtempSync(join(tmpdir(), 'mcpwire-inspector-'));
    ({ run: serve, url } = await serveDemo(['--no-legacy-sse']));
  });

  after(async () => {
    serve?.child.kill('SIGINT');
    await serve?.exit(10_000).catch(() => {});
    killCliRuns();
    if (home !== undefined) rmSync(home, { recursive: true, force: true });
  });

  /** The Inspector calls echo in `era`, and prints what the server answered. */
  async function echoThrough(era: 'modern' | 'legacy'): Promise<void> {
    const args = ['--protocol-era', era, '--method', 'tools/call', '--tool-name', 'echo'];
    const called = await inspector(home, url, [...args, '--tool-arg', 'message=from the Inspector']);
    assert.equal(toolText(resultOf(called)), 'Echo: from the Inspector');
  }

  test('--protocol-era modern: lists the demo tools and calls echo', {
    timeout: 2 * RUN_MS + 5000,
  }, async () => {
    const listed = resultOf(
      await inspector(home, url, ['--protocol-era', 'modern', '--method', 'tools/list']),
    );
    for (const name of ['echo', 'add', 'toggle_tool', 'touch_readme'])
      assert.ok(toolNames(listed).includes(name));
    await echoThrough('modern');
  });

  test('--protocol-era legacy, as a control: the same through a session', {
    timeout: RUN_MS + 5000,
  }, async () => {
    await echoThrough('legacy');
  });
});
