import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { until } from './time-limit.js';

/** The built `mcpwire` command: `npm run build` makes it (npm test does). */
export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** A running `mcpwire` command and what it has printed so far. */
export interface CliRun {
  readonly child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /**
   * Resolves with the exit code once its output is closed; rejects (and kills it) past `ms`, by default 20 s: the
   * time counts the start of node and of the command, which alone can take seconds on a loaded machine.
   */
  exit(ms?: number): Promise<number | null>;
}

/** Every run not yet closed, so that `killCliRuns` can end those a failed test left behind. */
const running = new Set<ChildProcessWithoutNullStreams>();

/** Starts the built `mcpwire …args` with piped stdio and collects what it prints; `env` adds to this one's. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): CliRun {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: 'pipe', env: { ...process.env, ...env } });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const closed = new Promise<number | null>((resolve) =>
    child.once('close', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exit: (ms = 20_000) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`mcpwire ${args.join(' ')} did not exit within ${ms} ms; stderr:\n${stderr}`));
        }, ms);
      });
      return Promise.race([closed, timeout]).finally(() => clearTimeout(timer));
    },
  };
}

/** Kills every run still going (SIGKILL), so a failed test leaves none running and the file does not hang. */
export function killCliRuns(): void {
  for (const child of running) child.kill('SIGKILL');
}

/**
 * Starts `mcpwire serve --port 0 …args` and resolves with the run and the URL it prints once it listens
 * (within 20 s; the run is killed otherwise).
 */
export async function serveDemo(
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<{ run: CliRun; url: string }> {
  const run = runCli(['serve', '--port', '0', ...args], env);
  run.child.stdin.end();
  const printed = () => /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(run.stdout())?.[0];
  try {
    await until(
      () => printed() !== undefined || run.child.exitCode !== null,
      20_000,
      'mcpwire serve to listen',
    );
  } finally {
    if (printed() === undefined) run.child.kill('SIGKILL');
  }
  const url = printed();
  if (url === undefined) throw new Error(`mcpwire serve exited before it listened; stderr:\n${run.stderr()}`);
  return { run, url };
}

/** `mcpwire call URL …args` run to its end (stdin closed at once): its exit code and what it wrote. */
export async function callCli(
  url: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const called = runCli(['call', url, ...args]);
  called.child.stdin.end();
  const code = await called.exit(30_000);
  return { code, stdout: called.stdout(), stderr: called.stderr() };
}

/** Stops a `serve` started by a test (Ctrl-C, then waits for it), and kills whatever CLI runs are left. */
export async function stopServe(run: CliRun | undefined): Promise<void> {
  run?.child.kill('SIGINT');
  await run?.exit(10_000).catch(() => {});
  killCliRuns();
}
