import type { HeaderSource } from './exchange.js';

// Checks a request passes before a transport looks at it. Pure functions, no I/O: each returns
// undefined when the request passes (allocating nothing beyond lower-casing a header), or why not.

/** Why a guard refused a request: the HTTP status and a message a person can act on, for `writeJsonError`. */
export interface HTTPRejection {
  status: number;
  message: string;
}

/**
 * Which Host and Origin headers a server answers: the defence against DNS rebinding, where a web page
 * on a hostile domain that resolves to 127.0.0.1 talks to a local server from the user's browser.
 * A list left undefined is not checked.
 */
export interface HostOriginPolicy {
  /**
   * Hosts as the Host header names them, matched without regard to case: `example.com` or `[::1]`
   * allow any port, `example.com:8080` only that port.
   */
  allowedHosts?: readonly string[];
  /**
   * Origins as browsers send them (`scheme://host[:port]`, no path), matched without regard to case;
   * `scheme://host:*` allows any port. Requests without an Origin (not from a browser) always pass;
   * the opaque origin `null` passes only if listed.
   */
  allowedOrigins?: readonly string[];
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'] as const;

/**
 * The policy for a server bound to a loopback address: Host must be a loopback name (with `port`
 * when given, otherwise any port), and a browser Origin must be a page served from a loopback name
 * (any port, http or https: a local web UI such as an inspector runs on a port of its own).
 */
export function defaultLoopbackPolicy(port?: number): HostOriginPolicy {
  return {
    allowedHosts: port === undefined ? [...LOOPBACK_HOSTS] : LOOPBACK_HOSTS.map((h) => `${h}:${port}`),
    allowedOrigins: LOOPBACK_HOSTS.flatMap((h) => [`http://${h}:*`, `https://${h}:*`]),
  };
}

/**
 * Whether a listen address is loopback only, so that DNS-rebinding protection is on by default. An
 * empty or missing address means every interface (node's default), which is not loopback.
 */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const a = address.toLowerCase();
  if (a === 'localhost' || a === '::1' || a === '[::1]') return true;
  const v4 = a.startsWith('::ffff:') ? a.slice(7) : a;
  // The whole of 127.0.0.0/8 is loopback.
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/**
 * Whether `url` may carry credentials: https, or http on loopback, where a server under development runs. The
 * MCP authorization spec asks it of every authorization server endpoint; elsewhere plain http would carry a
 * secret, a token or the keys that sign them across the network in the clear.
 */
export function isSecureEndpoint(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackAddress(url.hostname));
}

/** What the Host and Origin guard reads of a request. */
export interface HostSource extends HeaderSource {
  /** The authority of an absolute-form request target, checked instead of Host (see `HTTPExchange.authority`). */
  readonly authority?: string | undefined;
}

/**
 * Host first (421: this server is not the one addressed), then Origin (403, as the spec requires). The authority
 * of an absolute-form target is checked in place of Host, which RFC 9112 §3.2.2 then tells a server to ignore.
 */
export function checkHostAndOrigin(request: HostSource, policy: HostOriginPolicy): HTTPRejection | undefined {
  if (policy.allowedHosts !== undefined) {
    const authority = request.authority;
    if (authority !== undefined) {
      if (!hostAllowed(authority.toLowerCase(), policy.allowedHosts)) {
        return {
          status: 421,
          message: `Misdirected Request: the request target's authority ${quote(authority)} is not allowed (it stands for Host); configure allowedHosts to permit it`,
        };
      }
    } else {
      const host = request.header('host');
      if (host === undefined || host === '') {
        return { status: 400, message: 'Bad Request: the Host header is missing; HTTP/1.1 requires it' };
      }
      if (!hostAllowed(host.toLowerCase(), policy.allowedHosts)) {
        return {
          status: 421,
          message: `Misdirected Request: Host ${quote(host)} is not allowed; configure allowedHosts to permit it`,
        };
      }
    }
  }
  if (policy.allowedOrigins !== undefined) {
    const origin = request.header('origin');
    if (origin !== undefined && !originAllowed(origin.toLowerCase(), policy.allowedOrigins)) {
      return {
        status: 403,
        message: `Forbidden: Origin ${quote(origin)} is not allowed; configure allowedOrigins to permit it`,
      };
    }
  }
  return undefined;
}

function hostAllowed(host: string, allowed: readonly string[]): boolean {
  // The port starts after the last colon, unless that colon is inside an IPv6 literal's brackets.
  const colon = host.lastIndexOf(':');
  const hasPort = colon !== -1 && colon > host.lastIndexOf(']');
  if (hasPort && !isDigits(host, colon + 1)) return false;
  const nameLength = hasPort ? colon : host.length;
  for (const entry of allowed) {
    const e = entry.toLowerCase();
    if (e === host) return true;
    // An entry without a port matches the host name whatever the port.
    if (e.length === nameLength && host.startsWith(e) && e.lastIndexOf(':') <= e.lastIndexOf(']'))
      return true;
  }
  return false;
}

/** Whether the lower-cased `origin` is one of `allowed` (`scheme://host:*` standing for any port). */
export function originAllowed(origin: string, allowed: readonly string[]): boolean {
  const scheme = origin.indexOf('://');
  const colon = origin.lastIndexOf(':');
  const hasPort =
    scheme !== -1 && colon > scheme && colon > origin.lastIndexOf(']') && isDigits(origin, colon + 1);
  const baseLength = hasPort ? colon : origin.length;
  for (const entry of allowed) {
    const e = entry.toLowerCase();
    if (e === origin) return true;
    if (
      scheme !== -1 &&
      e.length === baseLength + 2 &&
      e.endsWith(':*') &&
      e.startsWith(baseLength === origin.length ? origin : origin.slice(0, baseLength))
    ) {
      return true;
    }
  }
  return false;
}

const MEDIA_JSON = 'application/json';

/**
 * The request's Accept header must list every media type in `needs` with a non-zero q-value.
 * Wildcards (`*\/*`, `application/*`) are read but do not count: the spec requires the client to list
 * both `application/json` and `text/event-stream` for a POST (and `text/event-stream` for a GET), and
 * a client that lists only `*\/*` has not said it can read an SSE stream. The official TypeScript SDK
 * rejects such a header too, so clients written against it already send the explicit list.
 */
export function checkAccept(
  header: string | undefined,
  needs: readonly ('application/json' | 'text/event-stream')[],
): HTTPRejection | undefined {
  const h = header === undefined ? '' : header.toLowerCase();
  for (const need of needs) {
    if (!accepts(h, need)) {
      return {
        status: 406,
        message: `Not Acceptable: the Accept header must list ${needs.join(' and ')}, got ${quote(header ?? '')}`,
      };
    }
  }
  return undefined;
}

/** The request body must be declared `application/json`; parameters such as `charset=utf-8` are fine. */
export function checkContentType(header: string | undefined): HTTPRejection | undefined {
  if (header !== undefined) {
    const h = header.toLowerCase();
    let start = 0;
    while (start < h.length && isSpace(h.charCodeAt(start))) start++;
    if (h.startsWith(MEDIA_JSON, start)) {
      const next = skipSpaces(h, start + MEDIA_JSON.length, h.length);
      if (next === h.length || h.charCodeAt(next) === SEMICOLON) return undefined;
    }
  }
  return {
    status: 415,
    message: `Unsupported Media Type: Content-Type must be application/json, got ${quote(header ?? '')}`,
  };
}

const COMMA = 0x2c;
const SEMICOLON = 0x3b;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Whether the lower-cased Accept header `h` lists `type` exactly with q > 0; scans without splitting. */
function accepts(h: string, type: string): boolean {
  let start = 0;
  while (start < h.length) {
    const end = elementEnd(h, start);
    const s = skipSpaces(h, start, end);
    if (h.startsWith(type, s)) {
      const next = skipSpaces(h, s + type.length, end);
      if (next === end) return true;
      if (h.charCodeAt(next) === SEMICOLON) return qValue(h, next, end) > 0;
    }
    start = end + 1;
  }
  return false;
}

/** The index of the comma ending the element that starts at `start` (commas inside quotes do not count). */
function elementEnd(h: string, start: number): number {
  let quoted = false;
  for (let i = start; i < h.length; i++) {
    const c = h.charCodeAt(i);
    if (quoted) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) quoted = false;
    } else if (c === QUOTE) quoted = true;
    else if (c === COMMA) return i;
  }
  return h.length;
}

/** The q parameter among the parameters in h[from, end) (from at a `;`); 1 when absent. */
function qValue(h: string, from: number, end: number): number {
  let i = from;
  while (i < end) {
    const s = skipSpaces(h, i + 1, end);
    let stop = h.indexOf(';', s);
    if (stop === -1 || stop > end) stop = end;
    if (h.charCodeAt(s) === 0x71 /* q */) {
      const eq = skipSpaces(h, s + 1, stop);
      if (h.charCodeAt(eq) === 0x3d /* = */) {
        const q = Number(h.slice(eq + 1, stop).trim());
        return Number.isNaN(q) ? 0 : q;
      }
    }
    i = stop;
  }
  return 1;
}

function skipSpaces(h: string, i: number, end: number): number {
  while (i < end && isSpace(h.charCodeAt(i))) i++;
  return i;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

function isDigits(s: string, from: number): boolean {
  if (from >= s.length) return false;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/** A header value quoted for a message: escaped, and cut short so a huge header cannot bloat the answer. */
function quote(value: string): string {
  return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);
}
