import { createInterface, type Interface } from 'node:readline/promises';
import type { ProgressBar } from './progress-bar.js';

/** The terminal `mcpwire call` may ask on: stdin to read, stderr to prompt on. */
export interface Terminal {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream & { isTTY?: boolean };
}

/** Runs one conversation with the person at the terminal and resolves with what it learned. */
export type Converse = <T>(talk: (rl: Interface) => Promise<T>) => Promise<T>;

/** True when there is a person to ask: both stdin and the prompt's stream are terminals. */
export function canAsk(terminal: Terminal): boolean {
  return terminal.input.isTTY === true && terminal.output.isTTY === true;
}

/**
 * Conversations on `terminal`, one at a time: the questions of a server request that arrives while
 * another is being answered wait for it, so that two never interleave on the screen. The progress bar
 * is cleared before each.
 */
export function conversations(terminal: Terminal, bar: ProgressBar): Converse {
  let queue: Promise<unknown> = Promise.resolve();
  return <T>(talk: (rl: Interface) => Promise<T>): Promise<T> => {
    const turn = queue.then(async () => {
      bar.clear();
      const rl = createInterface({ input: terminal.input, output: terminal.output, terminal: true });
      try {
        return await talk(rl);
      } finally {
        rl.close();
      }
    });
    queue = turn.catch(() => {});
    return turn;
  };
}
