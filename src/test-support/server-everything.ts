import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freePort } from './free-port.js';
import { within } from './time-limit.js';

/** The entry point of @modelcontextprotocol/server-everything, the official reference server. */
export const EVERYTHING = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

/** server-everything listening over HTTP, in a child process of the test's own. */
export interface RunningEverything {
  /**
   * Its MCP endpoint on 127.0.0.1, `/sse` in `sse` mode and `/mcp` in `streamableHttp` mode (it listens on
   * every interface; tests speak to loopback only).
   */
  readonly url: string;
  readonly port: number;
  /** What it has written to stderr so far. */
  stderr(): string;
  /** SIGTERM, then SIGKILL if it has not exited within 5 s; resolves once it has exited. Harmless twice. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5000;

/**
 * Spawns server-everything in `mode` on a free port and resolves once it says it listens (its line on
 * stderr). Rejects, with what it wrote, when it is not installed, exits first or is not ready within 15 s.
 * Call `stop()` when the tests end; should the test process exit first, the child is killed with it.
 */
export async function startEverything(mode: 'sse' | 'streamableHttp'): Promise<RunningEverything> {
  if (!existsSync(EVERYTHING)) {
    throw new Error(`${EVERYTHING} is missing: is @modelcontextprotocol/server-everything installed?`);
  }
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, mode], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    // streamableHttp logs every request on stdout; nothing there is needed.
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      process.off('exit', killOnExit);
      resolve();
    });
  });
  let stderr = '';
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await within(exited, STOP_TIMEOUT_MS, 'server-everything to exit').catch(() => {
      child.kill('SIGKILL');
      return exited;
    });
  };
  // `Server is running on port N` (sse), `… listening on port N` (streamableHttp).
  const ready = new RegExp(`(running|listening) on port ${port}\\b`);
  try {
    await within(
      new Promise<void>((resolve, reject) => {
        child.stderr!.setEncoding('utf8');
        child.stderr!.on('data', (chunk: string) => {
          stderr += chunk;
          if (ready.test(stderr)) resolve();
        });
        child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${stderr}`)));
      }),
      READY_TIMEOUT_MS,
      `server-everything (${mode}) to listen`,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url: `http://127.0.0.1:${port}${mode === 'sse' ? '/sse' : '/mcp'}`,
    port,
    stderr: () => stderr,
    stop,
  };
}
