import type { HTTPExchange } from './exchange.js';
import { originAllowed } from './guards.js';

/** Which web pages on other origins may call an MCP endpoint (CORS, in the Fetch standard), and how. */
export interface CorsOptions {
  /**
   * The origins whose pages may call, as browsers send them (`https://app.example.com`, no path), matched
   * without regard to case; `scheme://host:*` allows any port. An origin listed here is also let through the
   * DNS-rebinding Origin check.
   */
  origins: readonly string[];
  /** Request headers pages may send besides those MCP uses (e.g. an API-key header the client adds). */
  allowHeaders?: readonly string[];
  /**
   * Let pages send cookies and TLS client certificates (fetch `credentials: 'include'`): answers then carry
   * `Access-Control-Allow-Credentials: true`. Default false: a bearer token is an `Authorization` header, which
   * needs no credentials mode.
   */
  credentials?: boolean;
  /** How long, in seconds, a browser may reuse the answer to a preflight. Default `DEFAULT_CORS_MAX_AGE_S`. */
  maxAgeSeconds?: number;
}

/**
 * Two hours: Chromium's ceiling (Firefox allows a day). A cached preflight loosens nothing for long: each answer
 * still needs its own `Access-Control-Allow-Origin`, which an origin taken off the list no longer gets.
 */
export const DEFAULT_CORS_MAX_AGE_S = 7200;

/**
 * The request headers an MCP client sends, in both eras: the media types, a bearer token, the session, the
 * version, resumption, and the 2026-07-28 mirrored `Mcp-Method` and `Mcp-Name`. `Mcp-Param-{X}` names are
 * per tool, so a preflight gets back those it asks for (see `Cors.preflight`).
 */
export const CORS_REQUEST_HEADERS: readonly string[] = [
  'Content-Type',
  'Accept',
  'Authorization',
  'Mcp-Session-Id',
  'MCP-Protocol-Version',
  'Last-Event-ID',
  'Mcp-Method',
  'Mcp-Name',
];

/**
 * The response headers a client must read, which a page cannot without being told: the session id, the OAuth
 * challenge, and how long to wait before retrying.
 */
export const CORS_EXPOSED_HEADERS: readonly string[] = ['Mcp-Session-Id', 'WWW-Authenticate', 'Retry-After'];

const PARAM_PREFIX = 'mcp-param-';
/** An RFC 9110 token, as the `X` of `Mcp-Param-{X}` must be (the `x-mcp-header` rule). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;

/**
 * CORS for one endpoint: answers preflights, and marks the answers to pages of the allowed origins as readable.
 *
 * Promises: an allowed origin gets itself back in `Access-Control-Allow-Origin` (never `*`, so credentials may
 * be allowed), with `Vary: Origin`; every answer of an endpoint with CORS carries `Vary: Origin`, since it
 * depends on it. A preflight from an allowed origin is answered 204 with the endpoint's methods, the headers
 * MCP uses (`CORS_REQUEST_HEADERS`, those of `allowHeaders`, and each well-formed `Mcp-Param-*` name it asks
 * for: they cannot be listed ahead, and a wildcard would not cover `Authorization`), and `maxAgeSeconds`. A
 * preflight from any other origin is refused with 403 and no CORS header, so the browser fails the call.
 */
export class Cors {
  readonly origins: readonly string[];
  private readonly allowHeaders: string;
  private readonly allowedLower: ReadonlySet<string>;
  private readonly credentials: boolean;
  private readonly maxAge: string;
  private readonly exposed = CORS_EXPOSED_HEADERS.join(', ');

  /** `methods`: what the endpoint answers, e.g. `GET, POST, DELETE`. */
  constructor(
    options: CorsOptions,
    private readonly methods: string,
  ) {
    if (options.origins.length === 0) throw new TypeError('CORS needs at least one origin in `origins`');
    for (const origin of options.origins) {
      if (origin === '*' || !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]+$/i.test(origin)) {
        throw new TypeError(
          `CORS origins are scheme://host[:port] (or scheme://host:* for any port), not ${JSON.stringify(origin)}`,
        );
      }
    }
    this.origins = options.origins;
    const headers = [...CORS_REQUEST_HEADERS, ...(options.allowHeaders ?? [])];
    this.allowHeaders = headers.join(', ');
    this.allowedLower = new Set(headers.map((h) => h.toLowerCase()));
    this.credentials = options.credentials ?? false;
    this.maxAge = String(options.maxAgeSeconds ?? DEFAULT_CORS_MAX_AGE_S);
  }

  /** Whether the request is a CORS preflight: OPTIONS from a page, asking for a method. */
  isPreflight(exchange: HTTPExchange): boolean {
    return (
      exchange.method === 'OPTIONS' &&
      exchange.header('origin') !== undefined &&
      exchange.header('access-control-request-method') !== undefined
    );
  }

  /** Whether a page of `origin` may call. */
  allows(origin: string): boolean {
    return originAllowed(origin.toLowerCase(), this.origins);
  }

  /**
   * Answers a preflight (see `isPreflight`): 204 with the CORS headers for an allowed origin; for any other,
   * `refuse` with 403.
   */
  preflight(exchange: HTTPExchange, refuse: (status: number, message: string) => void): void {
    const origin = exchange.header('origin')!;
    if (!this.allows(origin)) {
      refuse(
        403,
        `Forbidden: pages of the origin ${JSON.stringify(origin.slice(0, 200))} may not call this endpoint (CORS); ` +
          'list it in the CORS origins to allow it (mcpwire serve --cors-origin)',
      );
      return;
    }
    const headers: Record<string, string> = {
      'access-control-allow-origin': origin,
      'access-control-allow-methods': this.methods,
      'access-control-allow-headers': this.requestHeaders(exchange.header('access-control-request-headers')),
      'access-control-max-age': this.maxAge,
      vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    };
    if (this.credentials) headers['access-control-allow-credentials'] = 'true';
    exchange.writeHead(204, headers);
    exchange.end();
  }

  /** Marks the answer to a request that is not a preflight: readable by the page when its origin is allowed. */
  decorate(exchange: HTTPExchange): void {
    exchange.setResponseHeader('vary', 'Origin');
    const origin = exchange.header('origin');
    if (origin === undefined || !this.allows(origin)) return;
    exchange.setResponseHeader('access-control-allow-origin', origin);
    exchange.setResponseHeader('access-control-expose-headers', this.exposed);
    if (this.credentials) exchange.setResponseHeader('access-control-allow-credentials', 'true');
  }

  /** The fixed list, and the well-formed `Mcp-Param-*` names asked for (as asked, lower case from browsers). */
  private requestHeaders(asked: string | undefined): string {
    if (asked === undefined) return this.allowHeaders;
    let out = this.allowHeaders;
    for (const raw of asked.split(',')) {
      const name = raw.trim().toLowerCase();
      if (
        name.length > PARAM_PREFIX.length &&
        name.startsWith(PARAM_PREFIX) &&
        !this.allowedLower.has(name) &&
        TOKEN.test(name)
      ) {
        out += ', ' + name;
      }
    }
    return out;
  }
}
