import { ErrorCode, McpError } from '../../jsonrpc/errors.js';
import { RequestTimeoutError } from '../../peer/errors.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../peer/peer-options.js';
import { Method } from '../../protocol/types.js';
import type { Client, ClientConnectOptions } from '../client.js';
import type { ClientSession } from '../client-session.js';
import { StreamableHTTPError } from '../http/http-client-errors.js';
import { ModernHTTPClientConnection } from '../http/modern-http-client-connection.js';
import { plainFetch } from '../http/plain-fetch.js';
import {
  StreamableHTTPClientConnection,
  type StreamableHTTPClientOptions,
} from '../http/streamable-http-client-connection.js';
import { OAuthError } from '../oauth/oauth-error.js';
import type { RetryPolicy } from '../retry-policy.js';
import type { EraVerdict } from '../session-era.js';
import { SSEClientConnection, type SSEClientOptions } from '../sse/sse-client-connection.js';
import { isModernRefusal } from './probe.js';
import { probeHTTP } from './probe-http.js';
import { VerdictCache } from './verdict-cache.js';

/** Which HTTP transport `connectUrl` speaks: `'auto'` tries Streamable HTTP and falls back to HTTP+SSE. */
export type UrlTransport = 'auto' | 'http' | 'sse';

/** Options both HTTP clients share; `connectUrl` hands them to whichever it uses. */
type SharedOption = 'fetch' | 'headers' | 'authHeaders' | 'retry' | 'maxEventChars';

/** How `connectUrl` reaches the server. Every field is optional. */
export interface ConnectUrlOptions {
  /** `'auto'` (default), `'http'` (Streamable HTTP only) or `'sse'` (the legacy HTTP+SSE transport only). */
  transport?: UrlTransport;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Called before every request; its headers (e.g. a fresh bearer token) are added. */
  authHeaders?: () => Record<string, string> | Promise<Record<string, string>>;
  /** The fetch to use (a proxy-aware one, a test double). Default: the global fetch. */
  fetch?: typeof fetch;
  /** Reconnection and resumption of streams. Default `DEFAULT_RETRY_POLICY`. */
  retry?: Partial<RetryPolicy>;
  /**
   * The longest answer read, whichever client: an SSE event still unfinished, in characters; a JSON body, in bytes.
   * Past it the request fails saying so. Default 16 Mi.
   */
  maxEventChars?: number;
  /** Aborting gives up on connecting. */
  signal?: AbortSignal;
  /**
   * The most time, in ms, the whole handshake may take (fallback included). Default: the client's requestTimeoutMs.
   * A server that answers nothing fails with a RequestTimeoutError for `server/discover` once it has taken all of it.
   */
  timeoutMs?: number;
  /** Further options of the Streamable HTTP client. */
  streamable?: Omit<StreamableHTTPClientOptions, SharedOption>;
  /** Further options of the legacy HTTP+SSE client. */
  sse?: Omit<SSEClientOptions, SharedOption>;
  /** Told when `'auto'` falls back to the legacy transport, with the refusal that made it do so. */
  onFallback?: (refusal: StreamableHTTPError) => void;
  /** What an earlier negotiation with this endpoint found (`session.verdict`): skips the probe while it holds. */
  prior?: EraVerdict;
}

/** The answers to a POSTed initialize that mean "not a Streamable HTTP endpoint" (spec: backwards compatibility). */
const LEGACY_STATUSES = new Set([400, 404, 405]);

/**
 * Connects `client` to the MCP server at `url` and resolves with the ready session, in the era the client
 * and server share (`session.era`, `session.verdict`).
 *
 * With the client's `era: 'auto'` (the default) it does what the spec's backwards-compatibility sections
 * ask of a dual-era client: a modern `server/discover` first; a discover result or a recognised modern
 * error means the modern era (a -32022 naming a version this client speaks is asked again with it); any
 * other answer, however garbled, means `initialize` over Streamable HTTP; and only a 400, 404 or 405 to
 * that, without a modern error in its body, leads to the legacy HTTP+SSE transport (a GET, then the
 * `endpoint` event). A 401, a network error or a timeout of initialize rejects as it is. When every step
 * fails it rejects with an AggregateError whose message says what each step answered.
 *
 * The verdict is kept per endpoint for the life of the process (`prior` supplies one), so later connects
 * skip the probe; one that proves wrong is dropped and the server probed afresh. A legacy verdict is
 * probed again after an hour, as the server may have been upgraded.
 */
export async function connectUrl(
  client: Client,
  url: string | URL,
  options: ConnectUrlOptions = {},
): Promise<ClientSession> {
  const mode = options.transport ?? 'auto';
  if (mode !== 'auto' && mode !== 'http' && mode !== 'sse') {
    throw new TypeError(`transport must be 'auto', 'http' or 'sse', got ${JSON.stringify(mode)}`);
  }
  const key = String(url);
  const deadline = options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs;
  const known = options.prior ?? eraVerdicts.get(key);
  if (known !== undefined && usable(known, mode, client)) {
    try {
      return remember(key, await connectAs(client, url, known, options, deadline));
    } catch (err) {
      if (options.signal?.aborted || isAuthFailure(err)) throw err;
      // Proved wrong (or the server changed): probe afresh.
      eraVerdicts.delete(key);
    }
  }
  return remember(key, await negotiate(client, url, mode, options, deadline));
}

/** Which era each endpoint spoke when this process last connected to it, by URL. */
const eraVerdicts = new VerdictCache();
const LEGACY_VERDICT_MAX_AGE_MS = 60 * 60 * 1000;

function remember(key: string, session: ClientSession): ClientSession {
  eraVerdicts.set(key, session.verdict);
  return session;
}

/** A verdict the client and the transport option allow, and not too old to trust. */
function usable(verdict: EraVerdict, mode: UrlTransport, client: Client): boolean {
  if (verdict.era === 'modern')
    return mode !== 'sse' && client.modernVersions.includes(verdict.protocolVersion);
  if (client.initializeParams === undefined || Date.now() - verdict.at > LEGACY_VERDICT_MAX_AGE_MS)
    return false;
  return mode === 'auto' || verdict.transport === undefined || verdict.transport === mode;
}

/** Connects as `verdict` says, without probing. */
async function connectAs(
  client: Client,
  url: string | URL,
  verdict: EraVerdict,
  options: ConnectUrlOptions,
  deadline: number | undefined,
): Promise<ClientSession> {
  if (verdict.era === 'modern') {
    return client.connect(new ModernHTTPClientConnection(url, shared(options)), {
      ...handshake(options, deadline),
      prior: verdict,
    });
  }
  const legacy = { ...handshake(options, deadline), prior: verdict };
  if (verdict.transport === 'sse')
    return withTransport(await client.connect(sse(url, options), legacy), 'sse');
  return withTransport(await client.connect(streamable(url, options), legacy), 'http');
}

/** The whole negotiation: discover, then initialize, then the legacy SSE transport. */
async function negotiate(
  client: Client,
  url: string | URL,
  mode: UrlTransport,
  options: ConnectUrlOptions,
  deadline: number | undefined,
): Promise<ClientSession> {
  const legacyOnly = { era: 'legacy', at: Date.now() } as const;
  if (mode === 'sse')
    return withTransport(
      await client.connect(sse(url, options), { ...handshake(options, deadline), prior: legacyOnly }),
      'sse',
    );
  const steps: string[] = [];
  if (client.modernVersions.length > 0) {
    // As long as any request may take: a sign-in (the OAuth fetch's, on the probe's 401) happens within it,
    // and must not be mistaken for a server that does not answer discover.
    const perRequest = client.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const left = deadline === undefined ? Number.POSITIVE_INFINITY : deadline - Date.now();
    const timeout = Math.max(1, Math.min(perRequest, left));
    const outcome = await probeHTTP(String(url), client, {
      ...shared(options),
      fetch: plainFetch(options.fetch),
      timeout,
      signal: options.signal,
    });
    // The probe waited out what was left of the deadline: there is no time to send initialize in.
    if (outcome.era === 'legacy' && outcome.silent && left <= perRequest)
      throw new RequestTimeoutError(Method.ServerDiscover, timeout, 'timeout');
    if (outcome.era === 'modern') {
      return client.connect(new ModernHTTPClientConnection(url, shared(options)), {
        ...handshake(options, deadline),
        start: outcome.start,
      });
    }
    steps.push(`server/discover got ${outcome.answer}`);
    if (client.initializeParams === undefined) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `${url} does not speak ${client.modernVersions.join(' or ')}: ${steps[0]}`,
      );
    }
  }
  let refusal: StreamableHTTPError;
  try {
    const session = await client.connect(streamable(url, options), {
      ...handshake(options, deadline),
      prior: legacyOnly,
    });
    return withTransport(session, 'http');
  } catch (err) {
    const status = err instanceof StreamableHTTPError ? err.status : undefined;
    if (
      mode === 'http' ||
      status === undefined ||
      !LEGACY_STATUSES.has(status) ||
      modernRefusal(err as StreamableHTTPError) !== undefined
    ) {
      throw withSteps(explained(err), steps);
    }
    refusal = err as StreamableHTTPError;
  }
  steps.push(`initialize got ${refusal.message}`);
  options.onFallback?.(refusal);
  try {
    return withTransport(
      await client.connect(sse(url, options), { ...handshake(options, deadline), prior: legacyOnly }),
      'sse',
    );
  } catch (err) {
    throw new AggregateError(
      [refusal, err],
      `${url} is neither a 2026-07-28 endpoint nor a Streamable HTTP one nor a legacy HTTP+SSE one: ` +
        `${steps.join('; ')}; the HTTP+SSE GET got ${(err as Error).message}`,
    );
  }
}

/** The failure of initialize, its message prefixed with what the probe before it answered. */
function withSteps(err: unknown, steps: string[]): unknown {
  if (steps.length === 0 || !(err instanceof Error)) return err;
  const message = `${steps.join('; ')}; then initialize failed: ${err.message}`;
  if (err instanceof StreamableHTTPError)
    return new StreamableHTTPError(message, err.status, err.body, { cause: err });
  return new AggregateError([err], message);
}

/** The error of a refusal of initialize whose body is one only a modern server sends. */
function modernRefusal(
  err: StreamableHTTPError,
): { code: number; data?: { supported?: unknown } } | undefined {
  try {
    const error = JSON.parse(err.body ?? '')?.error;
    return isModernRefusal(error?.code, err.status) ? error : undefined;
  } catch {
    return undefined;
  }
}

/** A modern server's refusal of initialize, said as such: the legacy transports are not what it serves. */
function explained(err: unknown): unknown {
  if (!(err instanceof StreamableHTTPError)) return err;
  const refusal = modernRefusal(err);
  if (refusal === undefined) return err;
  const code = refusal.code;
  const list = refusal.data?.supported;
  const supported = Array.isArray(list) ? ` (it serves ${list.join(', ')})` : '';
  return new StreamableHTTPError(
    `${err.message} [${code}: an error only a 2026-07-28 or later server sends${supported}, so the legacy ` +
      "HTTP+SSE transport was not tried; connect with era 'auto' or 'modern']",
    err.status,
    err.body,
    { cause: err },
  );
}

function isAuthFailure(err: unknown): boolean {
  return (
    err instanceof OAuthError ||
    (err instanceof StreamableHTTPError && (err.status === 401 || err.status === 403))
  );
}

/** The session's verdict, with the legacy transport that reached it. */
function withTransport(session: ClientSession, transport: 'http' | 'sse'): ClientSession {
  session.recordTransport(transport);
  return session;
}

function shared(options: ConnectUrlOptions) {
  const { fetch, headers, authHeaders, maxEventChars } = options;
  return { fetch, headers, authHeaders, maxEventChars };
}

function streamable(url: string | URL, options: ConnectUrlOptions): StreamableHTTPClientConnection {
  return new StreamableHTTPClientConnection(url, {
    ...options.streamable,
    ...shared(options),
    retry: options.retry,
  });
}

function sse(url: string | URL, options: ConnectUrlOptions): SSEClientConnection {
  return new SSEClientConnection(url, { ...options.sse, ...shared(options), retry: options.retry });
}

/** The handshake limits of one attempt: what is left of the deadline, at least 1 ms. */
function handshake(options: ConnectUrlOptions, deadline: number | undefined): ClientConnectOptions {
  const timeout = deadline === undefined ? options.timeoutMs : Math.max(1, deadline - Date.now());
  return { signal: options.signal, timeoutMs: timeout };
}
