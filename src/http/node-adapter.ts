import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  BodyTooLargeError,
  type HTTPExchange,
  REFUSED_BODY_DRAIN_BYTES,
  REFUSED_BODY_DRAIN_MS,
  REFUSED_BODY_LINGER_MS,
} from './exchange.js';
import { ExchangeBase } from './exchange-base.js';
import { type AbsoluteTarget, splitAbsoluteTarget } from './request-target.js';

/** Bodies from this many UTF-16 units on are sent as one buffer (see `end`); smaller ones join the head. */
const LARGE_BODY = 64 * 1024;
const SLASH = 0x2f;

/** Statuses whose responses never have a body (RFC 9110 §6.4.1), so they carry no Content-Length. */
const hasNoBody = (status: number) => status < 200 || status === 204 || status === 304;

const ALREADY_READ =
  'the request body was already read by something before the MCP handler, which left no body for it: ' +
  'mount the handler before that body parser, or pass the body it parsed (handler.node()(req, res, body))';

/** A body a framework read as text or bytes, held to the same limit as one read here. */
function readGiven(
  body: string | Uint8Array,
  limitBytes: number,
  onBody: (text: string) => void,
  onError: (err: unknown) => void,
): void {
  const bytes = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  if (bytes > limitBytes) {
    onError(new BodyTooLargeError(limitBytes));
    return;
  }
  onBody(
    typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.length).toString('utf8'),
  );
}

/**
 * An exchange over node:http's own request and response objects, with no fetch objects in between:
 * this is the hot path. Status and headers are set on the response without sending them, so a body
 * given to `end` goes out with its head in one system call, with a Content-Length.
 *
 * `body` is what a framework already read of the request body (see `NodeListener`); without it, a `req.body`
 * stands for the body once the request stream has ended (express's body parsers leave it there).
 */
export function fromNode(req: IncomingMessage, res: ServerResponse, body?: unknown): HTTPExchange {
  if (body === undefined || typeof body === 'function') {
    const left = (req as { body?: unknown }).body;
    body = left !== undefined && req.readableEnded ? left : undefined;
  }
  return new NodeExchange(req, res, body);
}

/**
 * A node:http request listener that also takes a body a framework already read: the JSON value its parser made
 * (express.json(), fastify: `request.body`), or the body's text or bytes (express.text(), express.raw()). Express
 * passes its `next` as the third argument: a function is no body, and is ignored.
 */
export type NodeListener = (req: IncomingMessage, res: ServerResponse, body?: unknown) => void;

class NodeExchange extends ExchangeBase implements HTTPExchange {
  private headerRecord: Readonly<Record<string, string>> | undefined;
  /** An oversized body's rest is being read and dropped (`refuseRest`) until this is false again. */
  private draining = false;
  /** The response went out whole while the body drained; it ends (closing the connection) once the drain does. */
  private answered = false;
  /** The target split once, when it is not in origin form (null: not in absolute form either). */
  private absolute: AbsoluteTarget | null | undefined;
  /** The status, and the headers set so far as name, value, name, value…: given to node:http's writeHead as is. */
  private status = 200;
  private head: string[] | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    /** What a framework already read of the body: a JSON value, its text or its bytes; undefined when nothing. */
    private readonly preread: unknown,
  ) {
    super();
  }

  get parsedBody(): unknown {
    const body = this.preread;
    return typeof body === 'string' || body instanceof Uint8Array ? undefined : body;
  }

  get method(): string {
    return this.req.method ?? 'GET';
  }

  get target(): string {
    const url = this.req.url ?? '/';
    if (url.charCodeAt(0) === SLASH) return url;
    return this.absoluteForm(url)?.target ?? url;
  }

  get authority(): string | undefined {
    const url = this.req.url;
    if (url === undefined || url.charCodeAt(0) === SLASH) return undefined;
    return this.absoluteForm(url)?.authority;
  }

  private absoluteForm(url: string): AbsoluteTarget | null {
    if (this.absolute === undefined) this.absolute = splitAbsoluteTarget(url) ?? null;
    return this.absolute;
  }

  get remoteAddress(): string | undefined {
    return this.req.socket.remoteAddress;
  }

  header(name: string): string | undefined {
    const value = this.req.headers[name];
    return value === undefined || typeof value === 'string' ? value : value.join(', ');
  }

  get rawHeaders(): Readonly<Record<string, string | readonly string[] | undefined>> {
    return this.req.headers;
  }

  get headers(): Readonly<Record<string, string>> {
    if (this.headerRecord === undefined) {
      const raw = this.req.headers;
      // No prototype: a header named like an Object method reads as sent, not as that method.
      const record: Record<string, string> = Object.create(null);
      for (const name in raw) {
        const value = raw[name];
        if (value !== undefined) record[name] = typeof value === 'string' ? value : value.join(', ');
      }
      this.headerRecord = Object.freeze(record);
    }
    return this.headerRecord;
  }

  readBody(limitBytes: number, onBody: (text: string) => void, onError: (err: unknown) => void): void {
    const body = this.preread;
    if (typeof body === 'string' || body instanceof Uint8Array) {
      readGiven(body, limitBytes, onBody, onError);
      return;
    }
    const req = this.req;
    if (req.readableEnded) {
      onError(new Error(ALREADY_READ));
      return;
    }
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limitBytes) {
      this.refuseRest();
      onError(new BodyTooLargeError(limitBytes));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        stop();
        this.refuseRest();
        onError(new BodyTooLargeError(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    // Once the body has ended, the listeners stay: the request is dropped with them, and removing four
    // listeners per request costs more than letting the later 'close' find nothing to do.
    let ended = false;
    const onEnd = () => {
      ended = true;
      // Decode once at the end: a multi-byte character may straddle two chunks.
      onBody(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, size).toString('utf8'));
    };
    const onFailure = (err: Error) => {
      if (ended) return;
      stop();
      onError(err);
    };
    const onClose = () => {
      if (ended) return;
      stop();
      onError(new Error('the client closed the connection before sending the whole request body'));
    };
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onFailure);
      req.off('close', onClose);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onFailure);
    req.on('close', onClose);
  }

  /**
   * Reads the rest of an oversized body and drops it, within the drain bounds, and closes the connection after the
   * response once nothing is left unread: a socket closed with unread bytes is reset, and a client still sending
   * then loses the 413. A client that sends more, or for longer, is cut off.
   */
  private refuseRest(): void {
    const { req, res } = this;
    if (!res.headersSent) res.setHeader('connection', 'close');
    this.draining = true;
    let left = REFUSED_BODY_DRAIN_BYTES;
    const onData = (chunk: Buffer) => {
      left -= chunk.length;
      if (left < 0) settle(true);
    };
    const settle = (cut: boolean) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', drained).off('close', drained);
      this.draining = false;
      if (cut) this.cutOff();
      else if (this.answered) res.end();
    };
    const drained = () => settle(false);
    const timer = setTimeout(() => settle(true), REFUSED_BODY_DRAIN_MS).unref();
    req.on('data', onData).once('end', drained).once('close', drained);
    req.resume();
  }

  /** See REFUSED_BODY_LINGER_MS: destroyed at once, the socket would be reset with the 413 still unread. */
  private cutOff(): void {
    const socket = this.req.socket;
    socket.pause();
    socket.end();
    const timer = setTimeout(() => this.destroy(), REFUSED_BODY_LINGER_MS).unref();
    socket.once('close', () => {
      clearTimeout(timer);
      this.destroy();
    });
  }

  writeHead(status: number, headers?: Readonly<Record<string, string>>): void {
    this.status = status;
    if (headers !== undefined) for (const name in headers) this.setHead(name, headers[name]);
    this.wroteHead = true;
  }

  setResponseHeader(name: string, value: string): void {
    if (!this.res.headersSent) this.setHead(name.toLowerCase(), value);
  }

  /** Sets header `name` (lower case), replacing a value set before. */
  private setHead(name: string, value: string): void {
    const head = this.head;
    if (head === undefined) {
      this.head = [name, value];
      return;
    }
    for (let i = 0; i < head.length; i += 2) {
      if (head[i] === name) {
        head[i + 1] = value;
        return;
      }
    }
    head.push(name, value);
  }

  /**
   * Gives node:http the status and every header at once, with `length` as Content-Length when the body is known
   * whole. Headers handed over in one array take its fast path; set one by one, each is stored, then read back.
   */
  private sendHead(length?: number): void {
    const res = this.res;
    if (res.headersSent) return;
    const head = this.head ?? [];
    if (length !== undefined) head.push('content-length', String(length));
    res.writeHead(this.status, head);
  }

  flushHeaders(): void {
    this.wroteHead = true;
    this.sendHead();
    this.res.flushHeaders();
    this.streaming();
  }

  write(chunk: string): boolean {
    if (this.closed) return false;
    this.wroteHead = true;
    if (!this.res.headersSent) {
      this.sendHead();
      this.streaming();
    }
    return this.res.write(chunk);
  }

  /** A response written in parts is a stream: each part must leave at once, not wait to fill a segment. */
  private streaming(): void {
    this.res.socket?.setNoDelay(true);
  }

  onDrain(listener: () => void): void {
    this.res.once('drain', listener);
  }

  flushed(): Promise<void> | undefined {
    const res = this.res;
    if (res.writableLength === 0 || this.closed) return undefined;
    return new Promise((resolve) => {
      const done = () => {
        res.off('close', done);
        resolve();
      };
      // The socket completes writes in order, so the callback of an empty one runs once every chunk
      // before it was accepted by the kernel (or failed). The empty chunk sends no bytes, not even a
      // chunked-encoding frame. 'close' covers a response dropped before its buffer reached the socket.
      res.once('close', done);
      res.write('', done);
    });
  }

  end(body?: string): void {
    if (this.closed) return;
    this.wroteHead = true;
    if (this.draining && !this.res.headersSent) {
      // Ended now, the response would have node:http destroy the socket with the body's rest unread; so it goes
      // out whole, its length told, and ends when the drain does.
      const bytes = Buffer.from(body ?? '');
      this.sendHead(bytes.length);
      if (bytes.length > 0) this.res.write(bytes);
      else this.res.flushHeaders();
      this.answered = true;
      this.notifyClosed();
      return;
    }
    if (body === undefined) {
      // Told no length, node:http would send an empty body chunked; a status that has no body has no length.
      this.sendHead(hasNoBody(this.status) ? undefined : 0);
      this.res.end();
    } else if (this.res.headersSent) this.res.end(body);
    else if (body.length >= LARGE_BODY) {
      // A large body is encoded once, into a buffer the socket sends as is: given the string, node would
      // flatten it once to measure it and again when it joins the head to it, before encoding it.
      const bytes = Buffer.from(body);
      this.sendHead(bytes.length);
      this.res.end(bytes);
    } else {
      this.sendHead(Buffer.byteLength(body));
      this.res.end(body);
    }
    this.notifyClosed();
  }

  destroy(): void {
    if (this.res.destroyed) return;
    this.res.destroy();
    this.notifyClosed();
  }

  get bytesBuffered(): number {
    // The response's own buffer plus the socket's: everything not yet handed to the kernel.
    return this.res.writableLength;
  }

  get closed(): boolean {
    return this.answered || this.res.writableEnded || this.res.destroyed;
  }

  protected override watchClose(): void {
    this.res.once('close', () => this.notifyClosed());
  }
}
