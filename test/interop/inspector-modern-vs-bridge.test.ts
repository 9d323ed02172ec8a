// The MCP Inspector's CLI (2.12.0) pinned to the 2026-07-28 era against `mcpwire serve -- CMD` bridging
// server-everything, a 2025 stdio server: a client and a child no one here wrote, in different eras.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type CliRun, killCliRuns, serveDemo } from '../../src/test-support/cli-run.js';
import {
  INSPECTOR_RUN_MS,
  inspector,
  inspectorSkip,
  resultOf,
  toolNames,
} from '../../src/test-support/inspector-cli.js';
import { EVERYTHING } from '../../src/test-support/server-everything.js';
import { toolText } from '../../src/test-support/tool-text.js';

describe('MCP Inspector 2.12.0 CLI (2026-07-28) ↔ mcpwire serve -- server-everything', {
  skip: inspectorSkip,
}, () => {
  let serve: CliRun;
  let url: string;
  let home: string;

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'mcpwire-inspector-'));
    ({ run: serve, url } = await serveDemo(['--no-legacy-sse', '--', process.execPath, EVERYTHING, 'stdio']));
  });

  after(async () => {
    serve?.child.kill('SIGINT');
    await serve?.exit(10_000).catch(() => {});
    killCliRuns();
    if (home !== undefined) rmSync(home, { recursive: true, force: true });
  });

  test("--protocol-era modern: the child's tools listed, echo called through the bridge", {
    timeout: 2 * INSPECTOR_RUN_MS + 5000,
  }, async () => {
    const listed = resultOf(
      await inspector(home, url, ['--protocol-era', 'modern', '--method', 'tools/list']),
    );
    assert.ok(toolNames(listed).includes('echo') && toolNames(listed).includes('get-sum'));
    const called = await inspector(home, url, [
      '--protocol-era',
      'modern',
      '--method',
      'tools/call',
      '--tool-name',
      'echo',
      '--tool-arg',
      'message=from the Inspector',
    ]);
    assert.equal(toolText(resultOf(called)), 'Echo: from the Inspector');
  });
});
