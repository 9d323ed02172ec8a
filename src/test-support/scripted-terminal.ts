import { PassThrough } from 'node:stream';
import type { Terminal } from '../cli/terminal.js';

/** A terminal for tests of what `mcpwire call` asks; see `scriptedTerminal`. */
export interface ScriptedTerminal extends Terminal {
  input: PassThrough;
  output: PassThrough;
  /** Everything written to the terminal so far (prompts, echoed answers). */
  shown(): string;
}

/**
 * A terminal (`isTTY` as given) on which a person answers each question, i.e. each write that ends in
 * ": ", with the next of `answers`, as if typed and followed by Enter.
 */
export function scriptedTerminal(isTTY: boolean, answers: readonly string[] = []): ScriptedTerminal {
  const input = Object.assign(new PassThrough(), { isTTY });
  const output = Object.assign(new PassThrough(), { isTTY });
  const left = [...answers];
  let shown = '';
  output.setEncoding('utf8').on('data', (chunk: string) => {
    shown += chunk;
    if (chunk.endsWith(': ') && left.length > 0) {
      const answer = left.shift()!;
      setImmediate(() => input.write(`${answer}\n`));
    }
  });
  return { input, output, shown: () => shown };
}
