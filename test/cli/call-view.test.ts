// `mcpwire call … tools` and `view TOOL [FILE]` against an MCP App (examples/apps/server.ts over stdio, both
// eras): the tool list says which tool has a view, and the view's HTML is printed or written to a file.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { killCliRuns, runCli } from '../../src/test-support/cli-run.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const APP = ['--', process.execPath, '--import', 'tsx', join(ROOT, 'examples/apps/server.ts')];
const folder = mkdtempSync(join(tmpdir(), 'mcpwire-call-view-'));
after(() => {
  killCliRuns();
  rmSync(folder, { recursive: true, force: true });
});

async function call(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = runCli(['call', ...args, ...APP]);
  run.child.stdin.end();
  const code = await run.exit(30_000);
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

for (const era of ['modern', 'legacy']) {
  test(`${era}: tools shows the view; view prints its HTML or writes it to a file`, async () => {
    const tools = await call(['tools', '--era', era]);
    assert.equal(tools.code, 0, tools.stderr);
    assert.match(tools.stdout, /^roll: Rolls a die\n(.*\n)* {2}view: ui:\/\/dice\/roll\n/);

    const printed = await call(['view', 'roll', '--era', era]);
    assert.equal(printed.code, 0, printed.stderr);
    assert.equal(printed.stdout.trim(), '<!doctype html><html><body><p id="roll">…</p></body></html>');

    const file = join(folder, `${era}.html`);
    const written = await call(['view', 'roll', file, '--era', era]);
    assert.equal(written.code, 0, written.stderr);
    assert.match(written.stdout, /wrote the view of roll \(ui:\/\/dice\/roll, \d+ bytes\) to /);
    assert.equal(readFileSync(file, 'utf8'), '<!doctype html><html><body><p id="roll">…</p></body></html>');
  });
}

test('view of a tool the server does not list: exit 1 naming it', async () => {
  const missing = await call(['view', 'nope']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /view failed: The server lists no tool "nope"/);
});
