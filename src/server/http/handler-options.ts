import type { EventStore } from '../../eventstore/event-store.js';
import type { CorsOptions } from '../../http/cors.js';
import type { EndpointAuth } from '../../http/endpoint-auth.js';
import type { HostOriginPolicy } from '../../http/guards.js';
import type { RateLimitOptions } from '../../http/rate-limiter.js';
import type { Clock } from '../../util/clock.js';
import type { SessionDirectory } from './legacy/session-directory.js';

/** Default `sessionIdleTimeoutMs`: 30 minutes. */
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 30 * 60 * 1000;
/**
 * Default `initializeTimeoutMs`: 10 s. A client sends `notifications/initialized` as soon as it reads the answer
 * to initialize; 10 s covers a slow network many times over and keeps a flood of handshakes never finished
 * from holding the cap for long.
 */
export const DEFAULT_INITIALIZE_TIMEOUT_MS = 10_000;
/** Longest interval between two looks for idle sessions (shorter when the idle or initialize timeout is). */
export const IDLE_SWEEP_MS = 5000;
/** Default `maxSessions`. */
export const DEFAULT_MAX_SESSIONS = 10_000;
/** Default `retryMs`: how long a client waits before resuming a stream the server ended early. */
export const DEFAULT_RETRY_MS = 1000;
/** Default `deadlineMs` of `close`. */
export const DEFAULT_SHUTDOWN_DEADLINE_MS = 10_000;

/** How a `StreamableHTTPHandler` serves its endpoint. Every field has a production default. */
export interface StreamableHTTPOptions {
  /**
   * Records the SSE events of every stream so that a client whose connection dropped resumes it with
   * GET and Last-Event-ID, without loss (also after a slow reader's connection was dropped), and so that
   * streams of sessions at 2025-11-25 start with a priming event. Default: a `MemoryEventStore` (10 MiB,
   * oldest events purged first) of this handler. `null`: none (streams cannot be resumed). Unused in
   * stateless mode.
   */
  eventStore?: EventStore | null;
  /**
   * Serve every session from any of several processes sharing it (several hosts, or workers on one), with no
   * sticky sessions: a `RedisCluster` (src/cluster), or another `SessionDirectory`. Each request may reach any
   * process; a process that does not hold the session loads it. The cluster's event store is the handler's:
   * leave `eventStore` out. Not with `stateless`, which needs no sharing.
   */
  cluster?: SessionDirectory;
  /** No sessions: each POST is served by a temporary session, closed once answered; GET and DELETE get 405. */
  stateless?: boolean;
  /**
   * Answer each POST that carries requests with one `application/json` body instead of an SSE stream.
   * Messages sent while a request runs (logs, progress, sampling, elicitation) then go over the client's
   * GET stream; without one, server-to-client requests fail at once with `StreamUnavailableError`.
   * initialize is answered with JSON in either mode: it has nothing to stream, and an idle session then keeps
   * no events in the store. An answer follows the messages sent on the GET stream while its request ran once they
   * have left, or after `RELAY_WAIT_MS` (1 s) when the client is not reading that stream: order is kept within
   * each stream, and across the two only for a reader that keeps up.
   */
  jsonResponse?: boolean;
  /**
   * A session with no request in flight and no GET stream for this long is closed. Default 30 min; 0: never.
   * One sweep per handler looks for idle sessions every `min(IDLE_SWEEP_MS, sessionIdleTimeoutMs)`, so a
   * session ends up to that much later than its timeout (a timer per session would cost memory per session).
   */
  sessionIdleTimeoutMs?: number;
  /**
   * A session whose client sends nothing after initialize (not even `notifications/initialized`) for this long
   * is closed, unless a request or stream holds it; its client then gets 404. Default 10 s; 0: never. Checked by
   * the same sweep as `sessionIdleTimeoutMs`, so up to `IDLE_SWEEP_MS` later. With a cluster it ends only this
   * process's replica (the client may have spoken to another process).
   */
  initializeTimeoutMs?: number;
  /**
   * Sessions this handler holds at most. Default 10,000. At the cap a new session (an initialize, or with a
   * cluster a session loaded here) takes the place of an idle one (no request in flight, no stream held): the
   * oldest whose client never spoke after initialize, else the least recently active (to within 1 s), whose
   * client gets 404 on its next request and initializes again. Only when every session is busy does it get 503.
   * Per process: with a cluster the evicted session goes on in the other processes and is loaded again here if
   * its client comes back.
   */
  maxSessions?: number;
  /**
   * Largest request body, counted on the bytes actually read; past it 413 with `Connection: close`. Default 4 MiB.
   * The rest of a refused body is read and dropped, up to `REFUSED_BODY_DRAIN_BYTES` (16 MiB) more and for
   * `REFUSED_BODY_DRAIN_MS` (5 s), so that a client still sending reads the 413; past either, it is cut off.
   * A body is decoded into one string: a bound past the longest V8 makes (2^29 - 24) throws a RangeError.
   */
  maxBodyBytes?: number;
  /**
   * The Host and Origin allow-lists that defend against DNS rebinding (421 for a Host, 403 for an Origin
   * not listed). Default: `defaultLoopbackPolicy()`, i.e. only loopback names (localhost, 127.0.0.1,
   * [::1]) on any port, which is right for a server bound to loopback. A server reachable under other
   * names must list them (`{ allowedHosts: ['mcp.example.com'], allowedOrigins: [...] }`) or, behind a
   * proxy that checks them, pass `false`.
   */
  dnsRebindingProtection?: HostOriginPolicy | false;
  /**
   * Let web pages of other origins call the endpoint (CORS): `{ origins: ['https://app.example.com'] }`. Their
   * preflights are answered 204 with the methods and the headers MCP uses, their answers carry
   * `Access-Control-Allow-Origin` (their own origin, never `*`) and expose `Mcp-Session-Id` and
   * `WWW-Authenticate`; the origins are also let through the DNS-rebinding Origin check. Preflights come before
   * `auth`: they carry no token. Default: none (a page of another origin cannot read any answer; a preflight gets
   * 405). See `CorsOptions`.
   */
  cors?: CorsOptions;
  /** Interval of the SSE keep-alive comment; 0 turns it off. Default 15 s. */
  keepAliveMs?: number;
  /** Bytes a slow SSE reader may leave buffered before its connection is dropped (it resumes). Default 4 MiB. */
  maxBufferedBytes?: number;
  /** The `retry:` of priming events and of responses ended before their stream. Default 1000 ms. */
  retryMs?: number;
  /**
   * Serve only requests it lets in: a `ProtectedResource` takes OAuth access tokens (spec: authorization), others
   * getting 401 or 403 with a `WWW-Authenticate` challenge naming its metadata, which the application serves at
   * `auth.metadataPath` (503 when the token cannot be checked); `BearerTokens` takes tokens given out by hand. A
   * request's principal is its token's, so sessions are bound to it.
   * Default: none (requests are not authorized here; an outer layer may still set `exchange.principal`).
   */
  auth?: EndpointAuth;
  /**
   * Which eras this endpoint serves. Default `'both'`: a 2026-07-28 request (its `_meta` claims the version) is
   * served statelessly beside 2025 sessions. `'legacy'`: modern claims are not recognised (a dual-era client
   * falls back to initialize). `'modern'`: initialize is refused with the modern versions (-32022), and GET and
   * DELETE get 405.
   */
  eras?: 'both' | 'legacy' | 'modern';
  /**
   * Bounds on each caller (its principal, else its address): requests per window and POSTs in flight; past either,
   * 429 with Retry-After. With a `cluster` both are counted over all its processes (one Redis script per request;
   * while Redis fails, each process counts its own). Default: none.
   */
  rateLimit?: RateLimitOptions;
  /** Listen streams (`subscriptions/listen`) this handler holds at most; past it 503. Default 1,000. */
  maxListenStreams?: number;
  /**
   * Listen streams one principal may hold at once (with a `cluster`, over all its processes); past it 429.
   * Anonymous callers are counted by their address. Default 32.
   */
  maxListenStreamsPerPrincipal?: number;
  /** Timers for idle sessions, keep-alives and the shutdown deadline. Default: the system clock. */
  clock?: Clock;
  /** Hears every failure: refused requests (`HTTPRejectionError`), store and handler errors, dropped messages. */
  onerror?: (err: Error) => void;
}

/** Options of `StreamableHTTPHandler.close`. */
export interface ShutdownOptions {
  /** How long requests in flight may still run before their sessions are closed. Default 10 s. */
  deadlineMs?: number;
}
