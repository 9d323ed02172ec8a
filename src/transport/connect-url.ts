import type { Client, ClientConnectOptions } from '../client/client.js';
import type { ClientSession } from '../client/client-session.js';
import type { RetryPolicy } from './retry-policy.js';
import { SseClientConnection, type SseClientOptions } from './sse/client.js';
import { StreamableHttpError } from './streamable/client-errors.js';
import {
  StreamableHttpClientConnection,
  type StreamableHttpClientOptions,
} from './streamable/client-transport.js';

/** Which HTTP transport `connectUrl` speaks: `'auto'` tries Streamable HTTP and falls back to HTTP+SSE. */
export type UrlTransport = 'auto' | 'http' | 'sse';

/** Options both HTTP clients share; `connectUrl` hands them to whichever it uses. */
type SharedOption = 'fetch' | 'headers' | 'authHeaders' | 'retry';

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
  /** Aborting gives up on connecting. */
  signal?: AbortSignal;
  /** The most time, in ms, the whole handshake may take (fallback included). Default: the client's requestTimeout. */
  timeout?: number;
  /** Further options of the Streamable HTTP client. */
  streamable?: Omit<StreamableHttpClientOptions, SharedOption>;
  /** Further options of the legacy HTTP+SSE client. */
  sse?: Omit<SseClientOptions, SharedOption>;
  /** Told when `'auto'` falls back to the legacy transport, with the refusal that made it do so. */
  onFallback?: (refusal: StreamableHttpError) => void;
}

/** The answers to a POSTed initialize that mean "not a Streamable HTTP endpoint" (spec: backwards compatibility). */
const LEGACY_STATUSES = new Set([400, 404, 405]);

/**
 * Connects `client` to the MCP server at `url` and resolves with the initialized session.
 *
 * With `transport: 'auto'` (the default) it does what the spec's backwards-compatibility section asks
 * of clients: it POSTs initialize with the Streamable HTTP client; when that is refused with 400, 404 or
 * 405 it opens the legacy HTTP+SSE transport on the same URL (a GET, then the `endpoint` event) and
 * initializes there. Any other failure (401, a network error, a timeout…) rejects as it is, without a
 * fallback. When the fallback fails too, it rejects with an AggregateError holding both failures, whose
 * message names each. `session.connection` tells which transport was chosen.
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
  const shared = {
    fetch: options.fetch,
    headers: options.headers,
    authHeaders: options.authHeaders,
    retry: options.retry,
  };
  const legacy = () => new SseClientConnection(url, { ...options.sse, ...shared });
  if (mode === 'sse') return client.connect(legacy(), handshake(options, undefined));

  const deadline = options.timeout === undefined ? undefined : Date.now() + options.timeout;
  const streamable = new StreamableHttpClientConnection(url, { ...options.streamable, ...shared });
  let refusal: StreamableHttpError;
  try {
    return await client.connect(streamable, handshake(options, deadline));
  } catch (err) {
    const status = err instanceof StreamableHttpError ? err.status : undefined;
    if (mode === 'http' || status === undefined || !LEGACY_STATUSES.has(status)) throw err;
    refusal = err as StreamableHttpError;
  }
  options.onFallback?.(refusal);
  try {
    return await client.connect(legacy(), handshake(options, deadline));
  } catch (err) {
    throw new AggregateError(
      [refusal, err],
      `${url} is neither a Streamable HTTP endpoint (${refusal.message}) nor a legacy HTTP+SSE one ` +
        `(${(err as Error).message})`,
    );
  }
}

/** The handshake limits of one attempt: what is left of the deadline, at least 1 ms. */
function handshake(options: ConnectUrlOptions, deadline: number | undefined): ClientConnectOptions {
  const timeout = deadline === undefined ? options.timeout : Math.max(1, deadline - Date.now());
  return { signal: options.signal, timeout };
}
