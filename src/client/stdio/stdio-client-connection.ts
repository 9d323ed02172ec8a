import { type ChildProcess, spawn } from 'node:child_process';
import type { JsonRpcMessage } from '../../jsonrpc/types.js';
import type { Connection, Receiver } from '../../peer/connection.js';
import {
  DEFAULT_MAX_LINE_BYTES,
  type LineReader,
  LineWriter,
  messageLineReader,
} from '../../peer/stdio-framing.js';
import { textBound } from '../../util/text-bound.js';
import { stdioEnvironment } from './stdio-env.js';

export interface StdioClientOptions {
  /** The program to run (looked up on PATH); it is not run through a shell. */
  command: string;
  args?: string[];
  /**
   * Variables for the child, set over a small allow-list inherited from this process (PATH, HOME,
   * locale…: see INHERITED_ENV_VARS); the rest of this process's environment is not passed on.
   */
  env?: Record<string, string>;
  cwd?: string;
  /** How long `close` waits after ending stdin, and again after SIGTERM, before escalating. 2000 ms. */
  closeGraceMs?: number;
  /**
   * 'pipe' (default) reads the child's stderr: its tail goes into the error reported when the child
   * exits on its own, and every chunk to `onStderr`. 'inherit' passes it straight to this process's
   * stderr instead (and the error then carries no tail).
   */
  stderr?: 'pipe' | 'inherit';
  /** Hears the child's stderr as it comes (with `stderr: 'pipe'`). */
  onStderr?: (chunk: string) => void;
  /**
   * Longest accepted message line in bytes; 16 MiB by default, at most 2^29 - 24 (the longest string V8 makes).
   * A longer line is dropped unkept; its first and last 4 KiB tell whose it is: a request is answered -32600 with
   * its id, an answer fails the request it answers at once.
   */
  maxLineBytes?: number;
  /**
   * How much may wait to be written to a child that does not read its stdin (bytes, counted as characters of the
   * JSON text); past it a message fails to send, saying so, instead of piling up in this process. 16 Mi by default.
   */
  maxQueuedBytes?: number;
}

/** A stdio connection to a spawned server process. */
export interface StdioClientConnection extends Connection {
  /** The child's process id; undefined when it could not be spawned. */
  readonly pid: number | undefined;
}

/**
 * Why a spawned server's connection ended without `close`: it exited on its own (`exitCode` or
 * `signal` set) or could not be started (`cause` set). The message names the command and ends
 * with the last lines the child wrote to stderr.
 */
export class StdioProcessError extends Error {
  override name = 'StdioProcessError';
  constructor(
    message: string,
    readonly command: string,
    readonly exitCode: number | null,
    readonly signal: NodeJS.Signals | null,
    readonly stderrTail: string,
    options?: { cause?: unknown },
  ) {
    super(stderrTail === '' ? message : `${message}; stderr tail:\n${stderrTail}`, options);
  }
}

const TAIL_CHARS = 4096;
const TAIL_LINES = 20;
/** After 'exit', how long to wait for the pipes to close; a grandchild may hold them open forever. */
const PIPE_DRAIN_MS = 100;

/**
 * Spawns `command` and speaks newline-delimited JSON-RPC over its stdin and stdout (the client end
 * of the stdio transport). `close` ends the child's stdin, waits `closeGraceMs` for it to exit,
 * then sends SIGTERM, then SIGKILL after another grace; it resolves once the child is gone, and
 * the receiver hears `closed()` without a cause. When the child exits on its own or cannot be
 * started, the receiver hears `closed(err)` with a StdioProcessError.
 */
export function spawnStdio(opts: StdioClientOptions): StdioClientConnection {
  return new StdioClient(opts);
}

class StdioClient implements StdioClientConnection {
  private readonly child: ChildProcess;
  private readonly writer: LineWriter;
  private receiver?: Receiver;
  private reader?: LineReader;
  private stderrTail = '';
  private exit?: { code: number | null; signal: NodeJS.Signals | null };
  private closing?: Promise<void>;
  /** Set once the connection is over; `closed` is delivered with it (at start, if not started yet). */
  private ended?: { cause: Error | undefined };
  private readonly endedSignal: Promise<void>;
  private signalEnded!: () => void;

  constructor(private readonly opts: StdioClientOptions) {
    textBound('maxLineBytes', opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
    this.endedSignal = new Promise((resolve) => {
      this.signalEnded = resolve;
    });
    const child = spawn(opts.command, opts.args ?? [], {
      env: stdioEnvironment(opts.env),
      cwd: opts.cwd,
      stdio: ['pipe', 'pipe', opts.stderr === 'inherit' ? 'inherit' : 'pipe'],
      windowsHide: true,
    });
    this.child = child;
    // The child's exit explains a broken pipe better than EPIPE does: stdin errors only fail writes.
    this.writer = new LineWriter(child.stdin!, () => {}, {
      maxQueued: opts.maxQueuedBytes ?? DEFAULT_MAX_LINE_BYTES,
      reader: JSON.stringify([opts.command, ...(opts.args ?? [])].join(' ')),
    });
    child.stdout!.on('error', () => {});
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', this.onStderr);
    child.on('error', this.onError);
    child.on('exit', this.onExit);
    child.on('close', this.onClose);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  start(receiver: Receiver): void {
    if (this.receiver !== undefined) throw new Error('Connection already started');
    this.receiver = receiver;
    if (this.ended !== undefined) {
      receiver.closed(this.ended.cause);
      return;
    }
    this.reader = messageLineReader(receiver, this.answer, this.opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
    const stdout = this.child.stdout!;
    stdout.on('data', this.onData);
    stdout.on('end', this.onStdoutEnd);
    if (this.exit !== undefined) this.armDrainTimer();
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (this.closing !== undefined || this.ended !== undefined) {
      return Promise.reject(new Error(`Connection to "${this.opts.command}" closed`));
    }
    return this.writer.write(message);
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    if (this.ended !== undefined) return;
    const grace = this.opts.closeGraceMs ?? 2000;
    this.writer.close(true);
    if (await this.endsWithin(grace)) return;
    this.child.kill('SIGTERM');
    if (await this.endsWithin(grace)) return;
    this.child.kill('SIGKILL');
    await this.endedSignal;
  }

  private endsWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      this.endedSignal.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(resolve, ms, false);
      }),
    ]).finally(() => clearTimeout(timer));
  }

  private readonly answer = (reply: JsonRpcMessage): void => {
    this.send(reply).catch(() => {});
  };

  private readonly onData = (chunk: Buffer): void => {
    this.reader!.push(chunk);
  };

  private readonly onStdoutEnd = (): void => {
    this.reader!.end();
  };

  private readonly onStderr = (chunk: string): void => {
    // Bounded: trimmed back to TAIL_CHARS whenever it doubles.
    this.stderrTail += chunk;
    if (this.stderrTail.length > 2 * TAIL_CHARS) this.stderrTail = this.stderrTail.slice(-TAIL_CHARS);
    this.opts.onStderr?.(chunk);
  };

  private readonly onError = (err: Error): void => {
    // Without a pid the spawn itself failed (ENOENT, EACCES, bad cwd); other errors (a failed
    // kill) leave the child to end through 'exit'.
    if (this.child.pid === undefined) {
      this.finish(
        this.failure(`MCP server "${this.opts.command}" could not be started: ${err.message}`, err),
      );
    } else {
      this.receiver?.error(err);
    }
  };

  private readonly onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
    this.exit = { code, signal };
    if (this.receiver !== undefined) this.armDrainTimer();
  };

  private readonly onClose = (): void => {
    this.finishFromExit();
  };

  private armDrainTimer(): void {
    setTimeout(() => this.finishFromExit(), PIPE_DRAIN_MS);
  }

  private finishFromExit(): void {
    if (this.ended !== undefined) return;
    if (this.closing !== undefined || this.exit === undefined) {
      this.finish(undefined);
      return;
    }
    const { code, signal } = this.exit;
    const how = signal !== null ? `was killed by ${signal}` : `exited with code ${code}`;
    this.finish(this.failure(`MCP server "${this.opts.command}" ${how}`));
  }

  private failure(message: string, cause?: Error): StdioProcessError {
    return new StdioProcessError(
      message,
      this.opts.command,
      this.exit?.code ?? null,
      this.exit?.signal ?? null,
      lastLines(this.stderrTail),
      cause === undefined ? undefined : { cause },
    );
  }

  private finish(cause: Error | undefined): void {
    if (this.ended !== undefined) return;
    this.ended = { cause };
    this.writer.fail(cause ?? new Error(`Connection to "${this.opts.command}" closed`));
    const stdout = this.child.stdout!;
    stdout.off('data', this.onData);
    stdout.off('end', this.onStdoutEnd);
    this.signalEnded();
    this.receiver?.closed(cause);
  }
}

/** The last TAIL_LINES lines of the last TAIL_CHARS characters of `text`, without a final newline. */
function lastLines(text: string): string {
  const lines = text.slice(-TAIL_CHARS).split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.slice(-TAIL_LINES).join('\n');
}
