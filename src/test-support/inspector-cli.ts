// The MCP Inspector's CLI (2.12.0, installed with the conformance tools), run as a client no one here wrote.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TOOLS = fileURLToPath(new URL('../../tools/conformance/node_modules/', import.meta.url));
/** The Node 22 binary kept in tools/conformance: the Inspector needs Node >= 22.19. */
export const NODE22 = join(TOOLS, '.bin', 'node');
/** The Inspector's CLI launcher, installed by `npm ci --prefix tools/conformance`. */
export const INSPECTOR = join(
  TOOLS,
  '@modelcontextprotocol',
  'inspector',
  'clients',
  'launcher',
  'build',
  'index.js',
);
/** How long one Inspector run may take before its process group is killed. */
export const INSPECTOR_RUN_MS = 30_000;

export interface InspectorRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `inspector --cli url …args --format json` with HOME in `home` (it writes ~/.mcp-inspector). Its whole
 * process group is killed once it has exited or after 30 s, so nothing it started outlives the test.
 */
export function inspector(home: string, url: string, args: string[]): Promise<InspectorRun> {
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
  const timer = setTimeout(killGroup, INSPECTOR_RUN_MS);
  return new Promise<InspectorRun>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  }).finally(() => {
    clearTimeout(timer);
    killGroup();
  });
}

/** The JSON-RPC result the Inspector printed, once it exited 0; otherwise fails with what it said. */
export function resultOf(run: InspectorRun): Record<string, unknown> {
  assert.equal(run.code, 0, `the Inspector exited ${run.code}: ${run.stderr || run.stdout}`);
  return (JSON.parse(run.stdout) as { result: Record<string, unknown> }).result;
}

export const toolNames = (result: Record<string, unknown>) =>
  (result.tools as { name: string }[]).map((t) => t.name);

/** Why the Inspector tests cannot run here, or false when they can. */
export const inspectorSkip = existsSync(NODE22)
  ? false
  : `no Node 22 binary at ${NODE22}: run \`npm ci --prefix tools/conformance\` (the Inspector needs Node >= 22.19)`;
