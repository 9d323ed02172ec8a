import {
  BodyTooLargeError,
  type HTTPExchange,
  REFUSED_BODY_DRAIN_BYTES,
  REFUSED_BODY_DRAIN_MS,
} from './exchange.js';
import { ExchangeBase } from './exchange-base.js';

/** Bytes a streamed web response queues before `write` reports backpressure (node's socket default). */
export const WEB_STREAM_HIGH_WATER_MARK = 16 * 1024;

export interface FromWebOptions {
  /** The peer's address, which a web `Request` does not carry (Bun: `server.requestIP`, Deno: `info`). */
  remoteAddress?: string;
}

/** An exchange over a web-standard `Request`, and the `Response` it produces. */
export interface WebExchange {
  exchange: HTTPExchange;
  /**
   * Settles when the handler first sends something: on `end` as a plain `Response` with the whole
   * body, on `flushHeaders` or the first `write` as a streamed one (SSE). A handler must always answer.
   */
  response: Promise<Response>;
}

/**
 * Adapts a web-standard `Request` (Hono, Bun, Deno, Workers) to an exchange. The `host` header falls
 * back to the authority of the request URL, which these runtimes build from it.
 */
export function fromWeb(request: Request, options?: FromWebOptions): WebExchange {
  const exchange = new WebRequestExchange(request, options?.remoteAddress);
  return { exchange, response: exchange.response };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Reads the rest of a refused body and drops it, within the drain bounds, then cancels it. The runtime owns the
 * connection (there is no socket here); but one that reads the body from it as it is pulled (node:http under
 * Hono) would otherwise close it with bytes unread, a reset that loses the 413 at a client still sending.
 */
async function drop(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  // Cancelling settles a pending read as done.
  const timer = setTimeout(() => reader.cancel().catch(() => {}), REFUSED_BODY_DRAIN_MS);
  try {
    for (let left = REFUSED_BODY_DRAIN_BYTES; left >= 0; ) {
      const { done, value } = await reader.read();
      if (done) return;
      left -= value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The client went away: nothing is left to drop.
  } finally {
    clearTimeout(timer);
  }
}

class WebRequestExchange extends ExchangeBase implements HTTPExchange {
  readonly response: Promise<Response>;
  private settle!: (response: Response) => void;
  private status = 200;
  private responseHeaders: Readonly<Record<string, string>> | undefined;
  /** Headers set by `setResponseHeader`, which those of `writeHead` join. */
  private presetHeaders: Record<string, string> | undefined;
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private drainListeners: (() => void)[] | undefined;
  private flushWaiters: (() => void)[] | undefined;
  private headerRecord: Readonly<Record<string, string>> | undefined;
  private isClosed = false;
  private destroyed = false;
  private targetCache: string | undefined;
  /** A `Request.url` is absolute whatever form the target had: Host is what was sent (see `HTTPExchange`). */
  readonly authority = undefined;

  constructor(
    private readonly request: Request,
    readonly remoteAddress: string | undefined,
  ) {
    super();
    this.response = new Promise((resolve) => {
      this.settle = resolve;
    });
  }

  get method(): string {
    return this.request.method;
  }

  get target(): string {
    if (this.targetCache === undefined) {
      const url = this.request.url;
      const slash = url.indexOf('/', url.indexOf('//') + 2);
      this.targetCache = slash === -1 ? '/' : url.slice(slash);
    }
    return this.targetCache;
  }

  header(name: string): string | undefined {
    const value = this.request.headers.get(name);
    if (value !== null) return value;
    return name === 'host' ? new URL(this.request.url).host : undefined;
  }

  get rawHeaders(): Readonly<Record<string, string>> {
    return this.headers;
  }

  get headers(): Readonly<Record<string, string>> {
    if (this.headerRecord === undefined) {
      // No prototype: a header named like an Object method reads as sent, not as that method.
      const record: Record<string, string> = Object.create(null);
      // Names come lower-case; only set-cookie is listed once per value.
      for (const [name, value] of this.request.headers) {
        const seen = record[name];
        record[name] = seen === undefined ? value : `${seen}, ${value}`;
      }
      if (record.host === undefined) record.host = new URL(this.request.url).host;
      this.headerRecord = Object.freeze(record);
    }
    return this.headerRecord;
  }

  readBody(limitBytes: number, onBody: (text: string) => void, onError: (err: unknown) => void): void {
    this.readAll(limitBytes).then(onBody, onError);
  }

  private async readAll(limitBytes: number): Promise<string> {
    const body = this.request.body;
    const declared = this.request.headers.get('content-length');
    if (declared !== null && Number(declared) > limitBytes) {
      if (body !== null) drop(body.getReader());
      throw new BodyTooLargeError(limitBytes);
    }
    if (body === null) return '';
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limitBytes) {
        drop(reader);
        throw new BodyTooLargeError(limitBytes);
      }
      chunks.push(value);
    }
    if (chunks.length === 1) return decoder.decode(chunks[0]);
    // Decode once at the end: a multi-byte character may straddle two chunks.
    const all = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      all.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return decoder.decode(all);
  }

  writeHead(status: number, headers?: Readonly<Record<string, string>>): void {
    this.status = status;
    this.responseHeaders = headers;
    this.wroteHead = true;
  }

  setResponseHeader(name: string, value: string): void {
    if (this.presetHeaders === undefined) this.presetHeaders = { [name]: value };
    else this.presetHeaders[name] = value;
  }

  flushHeaders(): void {
    if (this.controller === undefined && !this.isClosed) this.openStream();
  }

  write(chunk: string): boolean {
    if (this.isClosed) return false;
    const controller = this.controller ?? this.openStream();
    controller.enqueue(encoder.encode(chunk));
    return controller.desiredSize! > 0;
  }

  onDrain(listener: () => void): void {
    if (this.drainListeners === undefined) this.drainListeners = [listener];
    else this.drainListeners.push(listener);
  }

  flushed(): Promise<void> | undefined {
    if (this.isClosed || this.bytesBuffered === 0) return undefined;
    return new Promise((resolve) => {
      if (this.flushWaiters === undefined) this.flushWaiters = [resolve];
      else this.flushWaiters.push(resolve);
    });
  }

  end(body?: string): void {
    if (this.isClosed) return;
    this.isClosed = true;
    if (this.controller === undefined) {
      // An empty body must be null: statuses such as 204 refuse any body, even an empty one.
      this.settle(new Response(body === undefined || body === '' ? null : body, this.init()));
    } else {
      if (body !== undefined && body !== '') this.controller.enqueue(encoder.encode(body));
      this.controller.close();
    }
    this.notifyClosed();
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.isClosed = true;
    // Erroring the stream discards its queue; the runtime then aborts the connection.
    if (this.controller === undefined) this.settle(Response.error());
    else this.controller.error(new Error('the response was dropped by the server'));
    this.notifyClosed();
  }

  get bytesBuffered(): number {
    const desired = this.controller?.desiredSize;
    return desired == null ? 0 : WEB_STREAM_HIGH_WATER_MARK - desired;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  private init(): ResponseInit {
    this.wroteHead = true;
    const preset = this.presetHeaders;
    const headers = preset === undefined ? this.responseHeaders : { ...preset, ...this.responseHeaders };
    return headers === undefined ? { status: this.status } : { status: this.status, headers };
  }

  private openStream(): ReadableStreamDefaultController<Uint8Array> {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (c) => {
          controller = c;
        },
        // Called after each read that leaves the queue below the high-water mark, the last one included.
        pull: () => {
          const listeners = this.drainListeners;
          if (listeners !== undefined) {
            this.drainListeners = undefined;
            for (const listener of listeners) listener();
          }
          if (this.bytesBuffered === 0) this.settleFlushes();
        },
        // The consumer (the runtime's connection) went away.
        cancel: () => this.clientGone(),
      },
      { highWaterMark: WEB_STREAM_HIGH_WATER_MARK, size: (chunk) => chunk.byteLength },
    );
    this.controller = controller;
    // Runtimes that do not cancel the body on disconnect still abort the request's signal.
    this.request.signal.addEventListener('abort', () => this.clientGone(), { once: true });
    this.settle(new Response(stream, this.init()));
    return controller;
  }

  protected override notifyClosed(): void {
    this.settleFlushes();
    super.notifyClosed();
  }

  private settleFlushes(): void {
    const waiters = this.flushWaiters;
    if (waiters === undefined) return;
    this.flushWaiters = undefined;
    for (const resolve of waiters) resolve();
  }

  private clientGone(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    // Ended, not errored: a runtime still reading (node:http under Hono, whose request signal aborts before its
    // socket's close cancels the body) logs an errored body as a server failure, and nothing failed here. What is
    // still queued goes nowhere and is freed with the stream. Closing a body the consumer cancelled throws.
    try {
      this.controller?.close();
    } catch {}
    this.notifyClosed();
  }
}
