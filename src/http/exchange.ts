/** The request body limit every transport applies unless configured otherwise: 4 MiB (413 past it). */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * After a 413, how much more of the refused body is read and dropped, and for how long, before the connection is
 * closed anyway (RFC 9112 §9.6). Closing a socket with unread bytes makes the kernel reset the connection, and a
 * client still sending then loses the 413 already written to it; a client that sends more, or longer, is cut off.
 */
export const REFUSED_BODY_DRAIN_BYTES = 16 * 1024 * 1024;
export const REFUSED_BODY_DRAIN_MS = 5_000;
/**
 * A client cut off past those bounds is not reset at once: reading stops and the 413 goes out with a FIN, so that
 * the client, its sends now blocked, reads the 413 before the connection is destroyed this long after.
 */
export const REFUSED_BODY_LINGER_MS = 1_000;

/**
 * One HTTP request and its response, as much of them as the MCP transports need and nothing more,
 * so that one transport serves node:http and web-standard runtimes alike.
 *
 * Promises: header names are looked up in lower case; `path`, `query` and `headers` are computed on first
 * use; `readBody` gives the whole body decoded as UTF-8 (RFC 8259 allows no other encoding for JSON), or why it
 * could not, once, counting the bytes it actually receives; `write` sends one chunk as one write
 * and returns false when the chunk had to wait in a buffer; once `closed` is true every write is
 * ignored; `onClose` listeners run exactly once, when the exchange ends for any reason (the response
 * was ended or dropped here, or the client went away).
 */
export interface HTTPExchange extends HeaderSource {
  /** The request method as sent, e.g. `POST`. */
  readonly method: string;
  /**
   * The request target in origin form: path and query, not decoded (`/mcp?x=1`); an absolute-form target
   * (`http://host/mcp?x=1`) is given without its scheme and authority.
   */
  readonly target: string;
  /**
   * The authority of an absolute-form request target, which stands for Host (RFC 9112 §3.2.2: the server then
   * ignores the Host header); undefined for a target in origin form, and on web runtimes, whose `Request.url`
   * is always absolute (the runtime resolved the target already).
   */
  readonly authority: string | undefined;
  /** The path of `target`, without the query, not decoded. */
  readonly path: string;
  /** The query parameters of `target`. */
  readonly query: URLSearchParams;
  /** The peer's IP address when the runtime tells it. */
  readonly remoteAddress: string | undefined;
  /** Set by an authentication layer to whoever made the request; transports may bind sessions to it. */
  principal: unknown;
  /** Set with `principal` by an OAuth layer: the scopes of the request's access token. */
  scopes: readonly string[] | undefined;
  /**
   * Every request header, as `header` gives it: lower-case names, repeated headers joined with `, `.
   * Built on first use (few callers want them all), the same frozen record afterwards.
   */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The request headers as the runtime holds them, for a caller that only scans them (e.g. to bound them):
   * lower-case names, a repeated header possibly an array. Costs nothing to get; never to be kept or changed.
   */
  readonly rawHeaders: Readonly<Record<string, string | readonly string[] | undefined>>;

  /**
   * The JSON value a framework's body parser already made of the request body (express.json(), fastify), or
   * undefined (always on web runtimes, whose Request comes with its body unread): then `readBody` gives it.
   * Its bytes were read before the handler ran, so only the Content-Length the request declared can be held to a
   * limit, and integers beyond 2^53 were rounded by that parser (such ids are refused as when parsed here).
   */
  readonly parsedBody?: unknown;
  /**
   * Reads the request body and calls `onBody` with its text, or `onError` with why it could not: exactly one of
   * them, once, possibly before `readBody` returns (a body a framework read already). Neither may throw.
   * `BodyTooLargeError` as soon as more than `limitBytes` bytes arrive (or are announced by Content-Length); the
   * rest is never buffered: it is read and dropped, up to `REFUSED_BODY_DRAIN_BYTES` more and for
   * `REFUSED_BODY_DRAIN_MS`, so that a client still sending can read the 413; then the connection is closed,
   * never reused. Callbacks rather than a promise: every POST reads a body, and a promise would cost each a turn.
   */
  readBody(limitBytes: number, onBody: (text: string) => void, onError: (err: unknown) => void): void;

  /**
   * Sets the status and headers (names in lower case; one set again replaces it). Nothing is sent yet: a body given
   * to `end` goes out with them.
   */
  writeHead(status: number, headers?: Readonly<Record<string, string>>): void;
  /**
   * Sets a response header before anyone answers, kept beside those `writeHead` sets later: for a header every
   * answer to the request carries, whoever writes it (CORS). Without effect once the head is written.
   */
  setResponseHeader(name: string, value: string): void;
  /** Sends the head now and every later write without delay: the response becomes a stream. */
  flushHeaders(): void;
  /** Sends a chunk; false when it had to wait in a buffer (wait for `onDrain` to write more cheaply). */
  write(chunk: string): boolean;
  /** Runs `listener` once, the next time buffered chunks have been handed on. */
  onDrain(listener: () => void): void;
  /**
   * Undefined when every chunk written so far has been handed on (`bytesBuffered` is 0: on node:http,
   * accepted by the kernel); otherwise a promise that resolves once they have been, or once the exchange
   * closed without them. Never rejects. Lets a caller order what it sends on another exchange after them.
   */
  flushed(): Promise<void> | undefined;
  /** Finishes the response, with `body` as its last (or only) chunk. */
  end(body?: string): void;
  /**
   * Drops the connection without finishing the response and discards whatever is buffered; also
   * after `end`, while what `end` left buffered has not drained.
   */
  destroy(): void;
  /** Bytes written but not yet handed to the network: what a reader that stopped reading costs. */
  readonly bytesBuffered: number;
  /** True once `writeHead` (or a first write) fixed the status. */
  readonly headWritten: boolean;
  /** True once nothing more can be written. */
  readonly closed: boolean;
  /** Runs `listener` once when the exchange closes; at once if it is closed already. */
  onClose(listener: () => void): void;
}

/** Anything whose request headers can be looked up by lower-case name. */
export interface HeaderSource {
  /** A request header by lower-case name; repeated headers joined with `, `. */
  header(name: string): string | undefined;
}

/** The request body was larger than the limit; its `status` (413) and message are ready for the client. */
export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
  readonly status = 413;
  constructor(readonly limitBytes: number) {
    super(
      `Payload Too Large: the request body exceeds the limit of ${limitBytes} bytes; ` +
        'send a smaller message or raise the server body size limit',
    );
  }
}
