/** What went wrong in a legacy HTTP+SSE client connection; see `SSEClientError.kind`. */
export type SSEClientErrorKind =
  /** The server answered the GET or a POST with an error status (`status` is set). */
  | 'http-status'
  /** The GET could not be made or its stream broke (network error, unreadable stream). */
  | 'network'
  /** The server ended the SSE stream. */
  | 'stream-ended'
  /** No `endpoint` event within `endpointTimeoutMs`. */
  | 'endpoint-timeout'
  /** The `endpoint` event named a URI that is not one, or one on another origin. */
  | 'endpoint-refused'
  /** The GET was redirected to another origin, or too many times, or in a browser (which hides where to). */
  | 'redirect-refused'
  /** The answer to the GET is not an event stream. */
  | 'not-event-stream'
  /** The stream stayed silent longer than `idleTimeoutMs`. */
  | 'idle'
  /** An unfinished SSE event exceeded `maxEventChars`. */
  | 'event-too-large'
  /** The retry budget is spent; `cause` is the last failure. */
  | 'retries-exhausted'
  /** The connection reached a new server session: what the old one held is lost. */
  | 'reconnected'
  /** A POST failed or got no answer in time. */
  | 'post-failed'
  /** `send` was refused: the connection is closing, or its queue is full. */
  | 'refused';

/**
 * An error of the legacy HTTP+SSE client transport. The message says what happened and what to do;
 * `kind` says it to code, `status` carries the HTTP status of an 'http-status' error.
 */
export class SSEClientError extends Error {
  override name = 'SSEClientError';
  readonly status: number | undefined;
  constructor(
    readonly kind: SSEClientErrorKind,
    message: string,
    options?: { cause?: unknown; status?: number },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.status = options?.status;
  }
}
