import type { Readable, Writable } from 'node:stream';
import type { JsonRpcMessage } from '../../jsonrpc/types.js';
import type { Connection, Receiver } from '../../peer/connection.js';
import {
  DEFAULT_MAX_LINE_BYTES,
  type LineReader,
  LineWriter,
  messageLineReader,
} from '../../peer/stdio-framing.js';
import { textBound } from '../../util/text-bound.js';

export interface StdioServerOptions {
  /** Where messages are read from; process.stdin by default. */
  stdin?: Readable;
  /** Where messages are written; process.stdout by default. Nothing else is ever written to it. */
  stdout?: Writable;
  /**
   * Longest accepted message line in bytes; 16 MiB by default, at most 2^29 - 24 (the longest string V8 makes).
   * A longer line is dropped unkept; its first and last 4 KiB tell whose it is: a request is answered -32600 with
   * its id, an answer fails the request it answers at once.
   */
  maxLineBytes?: number;
}

/**
 * The server end of the stdio transport: newline-delimited JSON-RPC read from stdin and written to
 * stdout (by default the process's own). Only protocol messages go to stdout; logs belong on
 * stderr. The connection ends when stdin ends or fails, or stdout fails; `close` stops reading but
 * lets messages already sent finish and leaves both streams open, since they are not its own.
 */
export function stdioServerConnection(opts: StdioServerOptions = {}): Connection {
  return new StdioServerConnection(
    opts.stdin ?? process.stdin,
    opts.stdout ?? process.stdout,
    textBound('maxLineBytes', opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES),
  );
}

class StdioServerConnection implements Connection {
  private receiver?: Receiver;
  private reader?: LineReader;
  private readonly writer: LineWriter;
  private closed = false;

  constructor(
    private readonly stdin: Readable,
    stdout: Writable,
    private readonly maxLineBytes: number,
  ) {
    this.writer = new LineWriter(stdout, (err) => this.finish(err));
  }

  start(receiver: Receiver): void {
    if (this.receiver !== undefined) throw new Error('Connection already started');
    this.receiver = receiver;
    this.reader = messageLineReader(receiver, this.answer, this.maxLineBytes);
    this.stdin.on('data', this.onData);
    this.stdin.on('end', this.onEnd);
    this.stdin.on('error', this.finish);
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('Connection closed'));
    return this.writer.write(message);
  }

  async close(): Promise<void> {
    this.finish();
  }

  private readonly answer = (reply: JsonRpcMessage): void => {
    this.send(reply).catch(() => {});
  };

  private readonly onData = (chunk: Buffer): void => {
    this.reader!.push(chunk);
  };

  private readonly onEnd = (): void => {
    this.reader!.end();
    this.finish();
  };

  private readonly finish = (cause?: Error): void => {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('error', this.finish);
    // Paused so that a process whose session is over is not kept alive by a reading stdin.
    this.stdin.pause();
    this.writer.close(false);
    this.receiver?.closed(cause);
  };
}
