import type { Writable } from 'node:stream';
import { tooLong } from '../jsonrpc/message-ends.js';
import { parseMessage } from '../jsonrpc/parse.js';
import { serialize } from '../jsonrpc/serialize.js';
import type { JsonRpcMessage } from '../jsonrpc/types.js';
import type { Receiver } from './connection.js';
import { deliver } from './deliver.js';

/** The longest line either stdio end accepts by default: 16 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;
const RESOLVED = Promise.resolve();
/** How much of each end of a line too long to keep is kept: enough for the short members beside the long one. */
const EDGE_BYTES = 4096;

/** A line past the limit, being skipped: its length so far and its two ends. */
interface CutLine {
  bytes: number;
  readonly head: Buffer;
  tail: Buffer;
}

/**
 * Splits a byte stream into lines. Lines may be split across chunks or share one; a trailing `\r`
 * is dropped and empty lines are skipped. Bytes are decoded per whole line, so a UTF-8 character
 * split across chunks survives. A line longer than `maxLineBytes` is dropped and reported once it
 * ends, with its length and its first and last few KiB; the rest of it is not kept while it streams past.
 */
export class LineReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Inside an oversize line: skip everything up to its newline. */
  private cut: CutLine | undefined;

  /** `maxLineBytes` is at most `LONGEST_TEXT_BYTES`: a line is decoded into one string (see `textBound`). */
  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onOversize: (bytes: number, head: Buffer, tail: Buffer) => void,
    private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(LF); nl !== -1; nl = chunk.indexOf(LF, start)) {
      this.complete(chunk, start, nl);
      start = nl + 1;
    }
    if (start < chunk.length) this.hold(chunk, start);
  }

  /**
   * The input ended: a last line without its newline still counts. An oversize one is reported without its
   * tail: where the input stopped need not be where the message did.
   */
  end(): void {
    const cut = this.cut;
    this.cut = undefined;
    if (cut !== undefined) this.onOversize(cut.bytes, cut.head, Buffer.alloc(0));
    else if (this.pendingBytes > 0) this.complete(Buffer.alloc(0), 0, 0);
    this.reset();
  }

  private complete(chunk: Buffer, start: number, end: number): void {
    if (this.skip(chunk, start, end)) {
      const cut = this.cut!;
      this.cut = undefined;
      this.onOversize(cut.bytes, cut.head, cut.tail);
      return;
    }
    let line: string;
    if (this.pendingBytes === 0) {
      if (end > start && chunk[end - 1] === CR) end--;
      if (end === start) return;
      line = chunk.toString('utf8', start, end);
    } else {
      this.pending.push(chunk.subarray(start, end));
      line = Buffer.concat(this.pending, this.pendingBytes + end - start).toString('utf8');
      this.reset();
      if (line.charCodeAt(line.length - 1) === CR) line = line.slice(0, -1);
      if (line.length === 0) return;
    }
    this.onLine(line);
  }

  private hold(chunk: Buffer, start: number): void {
    if (this.skip(chunk, start, chunk.length)) return;
    this.pending.push(start === 0 ? chunk : chunk.subarray(start));
    this.pendingBytes += chunk.length - start;
  }

  /**
   * Takes bytes `start` to `end` of `chunk`, the current line's, into the cut when the line is past the limit (or
   * now goes past it, with what is pending), and says whether it did. A line within it costs no allocation here.
   */
  private skip(chunk: Buffer, start: number, end: number): boolean {
    const cut = this.cut;
    if (cut !== undefined) {
      cut.bytes += end - start;
      cut.tail = lastBytes([cut.tail, chunk.subarray(start, end)]);
      return true;
    }
    const bytes = this.pendingBytes + end - start;
    if (bytes <= this.maxLineBytes) return false;
    const parts = [...this.pending, chunk.subarray(start, end)];
    this.cut = { bytes, head: Buffer.concat(parts, Math.min(EDGE_BYTES, bytes)), tail: lastBytes(parts) };
    this.reset();
    return true;
  }

  private reset(): void {
    if (this.pendingBytes === 0) return;
    this.pending = [];
    this.pendingBytes = 0;
  }
}

/** A copy of the last `EDGE_BYTES` of `parts` joined (a copy, so that no chunk is kept for a few bytes of it). */
function lastBytes(parts: readonly Buffer[]): Buffer {
  const kept: Buffer[] = [];
  let bytes = 0;
  for (let i = parts.length - 1; i >= 0 && bytes < EDGE_BYTES; i--) {
    const part = parts[i];
    const take = Math.min(part.length, EDGE_BYTES - bytes);
    kept.unshift(part.subarray(part.length - take));
    bytes += take;
  }
  return Buffer.concat(kept, bytes);
}

/**
 * A LineReader for newline-delimited JSON-RPC: each line is parsed once and delivered to
 * `receiver` (a batch whole). Invalid lines are answered with a JSON-RPC error through `answer` and
 * reported through `receiver.error`. An oversize one is answered with the id its ends show, and when
 * they show an answer to a request of `receiver`'s, that request fails at once (see `tooLong`).
 */
export function messageLineReader(
  receiver: Receiver,
  answer: (reply: JsonRpcMessage) => void,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
): LineReader {
  return new LineReader(
    (line) => deliver(parseMessage(line), receiver, answer),
    (bytes, head, tail) =>
      deliver(tooLong(head.toString('utf8'), tail.toString('utf8'), bytes, maxLineBytes), receiver, answer),
    maxLineBytes,
  );
}

interface Queued {
  line: string;
  resolve: () => void;
  reject: (err: Error) => void;
}

/** How much a LineWriter lets wait for a reader that does not keep up, and who that reader is (for the error). */
export interface WriteBound {
  /** Characters waiting to be written (in the stream's buffer and the writer's queue) past which `write` fails. */
  readonly maxQueued: number;
  /** Who is not reading, as the error names it: e.g. `"node server.js"`. */
  readonly reader: string;
}

/**
 * Writes JSON-RPC messages as lines: each serialized once and written with one `write`, in call order; the
 * lines of one turn of the event loop leave together at its end (or at `close`). While the stream's buffer
 * is full (`write` returned false) further lines wait in order for 'drain' instead of piling into the
 * stream. `write` resolves when the line has been handed to the stream, and rejects once the writer
 * has failed, or, with a `bound`, when the line would take what waits past it (that line alone fails).
 */
export class LineWriter {
  private queue: Queued[] = [];
  private head = 0;
  /** Characters of the lines in `queue` from `head`. */
  private queued = 0;
  private blocked = false;
  private corked = false;
  private closing?: 'end' | 'detach';
  private failure?: Error;

  /** `onError` hears the stream's errors; the writer fails its waiting lines with them. */
  constructor(
    private readonly stream: Writable,
    private readonly onError: (err: Error) => void,
    private readonly bound?: WriteBound,
  ) {
    stream.on('drain', this.flush);
    stream.on('error', this.handleError);
  }

  write(message: JsonRpcMessage): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    let line: string;
    try {
      line = serialize(message) + '\n';
    } catch (err) {
      return Promise.reject(err);
    }
    if (!this.blocked && this.head === this.queue.length) {
      this.gather();
      if (!this.stream.write(line)) this.blocked = true;
      return RESOLVED;
    }
    const waiting = this.stream.writableLength + this.queued;
    if (this.bound !== undefined && waiting + line.length > this.bound.maxQueued) {
      return Promise.reject(
        new Error(
          `${this.bound.reader} is not reading its input: ${waiting} characters already wait to be written to ` +
            `it (at most ${this.bound.maxQueued}); this message of ${line.length} was not sent`,
        ),
      );
    }
    this.queued += line.length;
    return new Promise((resolve, reject) => this.queue.push({ line, resolve, reject }));
  }

  /**
   * Lets the waiting lines go out, then ends the stream (when the writer owns it) or stops
   * watching it for 'drain' (when it is shared, like process.stdout).
   */
  close(endStream: boolean): void {
    // What this turn gathered goes now: whoever closes may exit before the turn ends.
    if (this.corked) this.release();
    this.closing = endStream ? 'end' : 'detach';
    if (this.head === this.queue.length) this.finishClose();
  }

  /** Rejects the waiting lines and every later `write` with `err`. */
  fail(err: Error): void {
    if (this.failure !== undefined) return;
    this.failure = err;
    const waiting = this.queue.slice(this.head);
    this.queue = [];
    this.head = 0;
    this.queued = 0;
    this.stream.off('drain', this.flush);
    for (const entry of waiting) entry.reject(err);
  }

  /**
   * Holds the lines written in this turn of the event loop, to go out together at its end (one system call for the
   * answers to many requests that arrived together, where each used to cost one).
   */
  private gather(): void {
    if (this.corked) return;
    this.corked = true;
    this.stream.cork();
    setImmediate(this.release);
  }

  private readonly release = (): void => {
    if (!this.corked) return;
    this.corked = false;
    this.stream.uncork();
  };

  private readonly flush = (): void => {
    this.blocked = false;
    const queue = this.queue;
    while (!this.blocked && this.head < queue.length) {
      const entry = queue[this.head++];
      this.queued -= entry.line.length;
      if (!this.stream.write(entry.line)) this.blocked = true;
      entry.resolve();
    }
    if (this.head === queue.length) {
      this.queue = [];
      this.head = 0;
      if (this.closing !== undefined) this.finishClose();
    }
  };

  private finishClose(): void {
    if (this.closing === 'end') {
      this.stream.end();
    } else {
      // The error listener stays: lines still in the stream's buffer may fail (EPIPE) later, and
      // an 'error' nobody listens to would crash the process.
      this.stream.off('drain', this.flush);
    }
  }

  private readonly handleError = (err: Error): void => {
    this.fail(err);
    this.onError(err);
  };
}
