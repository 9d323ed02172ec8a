import type { Progress } from '../peer/peer-options.js';

/** Where the bar is drawn: a writable stream that may be a terminal (process.stderr). */
export interface BarStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

const CLEAR_LINE = '\r\x1b[K';
const BAR_CELLS = 24;

/**
 * A one-line progress bar on a terminal. On a stream that is not a terminal it draws nothing at all,
 * so that redirected output holds no control characters. Lines printed through `print` appear above
 * the bar, which is drawn again below them.
 */
export class ProgressBar {
  private line: string | undefined;

  constructor(private readonly stream: BarStream) {}

  /** Draws (or redraws) the bar for `progress`. */
  update(progress: Progress): void {
    if (!this.stream.isTTY) return;
    // A pseudo-terminal may report 0 columns.
    this.line = renderProgress(progress, (this.stream.columns || 80) - 1);
    this.stream.write(`${CLEAR_LINE}${this.line}`);
  }

  /**
   * Shows a state (a task's status) as the line: on a terminal drawn in place like the bar; elsewhere written
   * as a line of its own (the caller shows only changes), since nothing can be redrawn there.
   */
  status(text: string): void {
    if (!this.stream.isTTY) {
      this.print(`${text}\n`);
      return;
    }
    const width = (this.stream.columns || 80) - 1;
    this.line = text.length > width ? text.slice(0, Math.max(0, width)) : text;
    this.stream.write(`${CLEAR_LINE}${this.line}`);
  }

  /** Writes `text` (whole lines) to the stream, above the bar when one is shown. */
  print(text: string): void {
    if (this.line === undefined) {
      this.stream.write(text);
      return;
    }
    this.stream.write(`${CLEAR_LINE}${text}${this.line}`);
  }

  /** Removes the bar, leaving the cursor at the start of an empty line. */
  clear(): void {
    if (this.line === undefined) return;
    this.line = undefined;
    this.stream.write(CLEAR_LINE);
  }
}

/**
 * The bar's text, at most `width` characters: `[######------] 50% 1/2 message` when the total is
 * known, `progress 3 message` when it is not.
 */
export function renderProgress(progress: Progress, width: number): string {
  const message = progress.message ? ` ${progress.message}` : '';
  let text: string;
  const total = progress.total;
  if (total !== undefined && total > 0) {
    const ratio = Math.min(1, Math.max(0, progress.progress / total));
    const filled = Math.round(ratio * BAR_CELLS);
    text =
      `[${'#'.repeat(filled)}${'-'.repeat(BAR_CELLS - filled)}] ${Math.floor(ratio * 100)}% ` +
      `${progress.progress}/${total}${message}`;
  } else {
    text = `progress ${progress.progress}${message}`;
  }
  return text.length > width ? text.slice(0, Math.max(0, width)) : text;
}
