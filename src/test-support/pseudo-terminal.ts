import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { until } from './time-limit.js';

/** A command running on a pseudo-terminal; see `onTerminal`. */
export interface TerminalRun {
  readonly child: ChildProcessWithoutNullStreams;
  /** What the terminal has shown so far, escape sequences and carriage returns left out. */
  shown(): string;
  /** Resolves with the exit code once the command has ended. */
  readonly closed: Promise<number | null>;
  /**
   * Waits (up to 10 s) until what was shown since the last answer matches `question`, then types `text`
   * and Enter; rejects with what the terminal shows when the question does not come.
   */
  answer(question: RegExp, text: string): Promise<void>;
}

/** Every run not yet closed, so that `killTerminalRuns` can end those a failed test left behind. */
const running = new Set<ChildProcessWithoutNullStreams>();

/**
 * Runs `argv` on a pseudo-terminal made by util-linux `script` (in every Debian install), so that it sees
 * stdin, stdout and stderr as a terminal, as when a person runs it; stdout and stderr both reach `shown`.
 */
export function onTerminal(argv: string[], env: Record<string, string> = {}): TerminalRun {
  const quoted = argv.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const child = spawn('script', ['--quiet', '--return', '--flush', '--command', quoted, '/dev/null'], {
    env: { PATH: process.env.PATH ?? '', TERM: 'dumb', ...env },
  });
  running.add(child);
  let shown = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's escape sequences
    shown += chunk.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replaceAll('\r', '');
  });
  const closed = new Promise<number | null>((resolve) =>
    child.once('close', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  let answeredAt = 0;
  return {
    child,
    shown: () => shown,
    closed,
    async answer(question, text) {
      await until(() => question.test(shown.slice(answeredAt)), 10_000, `the question ${question}`).catch(
        (err: Error) => {
          throw new Error(`${err.message}; the terminal shows:\n${shown.slice(answeredAt)}`);
        },
      );
      answeredAt = shown.length;
      child.stdin.write(`${text}\r`);
    },
  };
}

/** Kills every terminal run still going, so a failed test leaves none running. */
export function killTerminalRuns(): void {
  for (const child of running) child.kill('SIGKILL');
}
