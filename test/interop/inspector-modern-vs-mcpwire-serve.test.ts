// The MCP Inspector's CLI (2.12.0, a 2026-07-28 client no one here wrote) against `mcpwire serve`: in the
// modern era, pinned (`--protocol-era modern` fails rather than fall back), and as a control in the legacy era.
// It needs Node >= 22.19: it runs on the Node 22 binary kept in tools/conformance, beside it.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CLI, type CliRun, killCliRuns, serveDemo } from '../../src/test-support/cli-run.js';
import {
  INSPECTOR,
  inspector,
  INSPECTOR_RUN_MS as RUN_MS,
  resultOf,
  inspectorSkip as skip,
  toolNames,
} from '../../src/test-support/inspector-cli.js';
import { toolText } from '../../src/test-support/tool-text.js';

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
