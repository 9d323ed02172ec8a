import { base64, fromBase64, utf8Base64 } from '../util/base64.js';
import type { HeaderAnnotation } from './header-annotations.js';

/*
 * The Streamable HTTP header mirroring of spec 2026-07-28 (transports/streamable-http §Standard Request
 * Headers, §Value Encoding, §Server Validation): a modern request repeats its version, method, target name
 * and annotated arguments in headers so intermediaries can route without reading the body, and the server
 * refuses a request whose headers and body disagree, since each side of a proxy may trust a different one.
 */

/** A request header by lower-case name, repeated ones joined with `, ` (what `HeaderSource.header` gives). */
export type HeaderLookup = (lowerName: string) => string | undefined;

/**
 * Why a request's headers were refused: answer 400 with -32020 (HeaderMismatch), `message`, and
 * `data: { mismatch: { header, body } }`.
 */
export interface HeaderMismatch {
  /** The header at fault, spelled canonically (`Mcp-Name`, `Mcp-Param-Region`). */
  header: string;
  message: string;
  /** The value the body carries, when it carries one. */
  body?: unknown;
  /** The header as received, when it was. */
  received?: string;
}

/** Bounds on the `Mcp-*` headers of one request. */
export interface McpHeaderLimits {
  /** Most headers whose name starts with `mcp-` (default 64). */
  maxCount?: number;
  /** Most characters in their names and values together (default 16 KiB). */
  maxBytes?: number;
}

const PREFIX = '=?base64?';
const SUFFIX = '?=';
/** Canonical padded base64 of the standard alphabet; the spec's test table rejects anything looser. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });
/** A decimal number as a header may spell an integer argument (`42`, `42.0`, `4.2e1`). */
const DECIMAL = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const MCP_HEADER = /^mcp-/i;
const DISAGREE = 'Bad Request: the request headers and body disagree: ';

/** Where each method's `Mcp-Name` comes from (tasks/* are the Tasks extension's, SEP-2663). */
const NAME_SOURCES: ReadonlyMap<string, string> = new Map([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
  ['tasks/get', 'taskId'],
  ['tasks/update', 'taskId'],
  ['tasks/cancel', 'taskId'],
]);

/**
 * A value as a client writes it into `Mcp-Name` or `Mcp-Param-*`: integers in decimal, booleans as
 * `true`/`false`, strings as they are unless they hold non-ASCII or control characters, start or end with
 * a space, or look like the sentinel; those go as `=?base64?{base64 of UTF-8}?=`. A lone surrogate is
 * written as U+FFFD.
 */
export function encodeHeaderValue(value: string | number | boolean): string {
  if (typeof value !== 'string') return String(value);
  return needsBase64(value) ? PREFIX + utf8Base64(value) + SUFFIX : value;
}

function needsBase64(value: string): boolean {
  const last = value.length - 1;
  if (last >= 0 && (value.charCodeAt(0) === 0x20 || value.charCodeAt(last) === 0x20)) return true;
  for (let i = 0; i <= last; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return true;
  }
  return value.startsWith(PREFIX) && value.endsWith(SUFFIX);
}

/**
 * A received `Mcp-Name` or `Mcp-Param-*` value as the text it stands for: surrounding spaces and tabs
 * trimmed, the case-sensitive `=?base64?…?=` sentinel decoded. Undefined when the base64 is not canonical
 * and padded, does not decode to UTF-8, or a plain value holds a character a header field may not
 * (anything but visible ASCII, space and tab). A value missing either half of the sentinel is plain text.
 */
export function decodeHeaderValue(raw: string): string | undefined {
  const value = trimOws(raw);
  if (value.length >= PREFIX.length + SUFFIX.length && value.startsWith(PREFIX) && value.endsWith(SUFFIX)) {
    const encoded = value.slice(PREFIX.length, value.length - SUFFIX.length);
    if (!BASE64.test(encoded)) return undefined;
    const bytes = fromBase64(encoded);
    // Non-zero bits past the last byte decode leniently; only the canonical spelling is accepted.
    if (base64(bytes) !== encoded) return undefined;
    try {
      return UTF8.decode(bytes);
    } catch {
      return undefined;
    }
  }
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c > 0x7e) return undefined;
  }
  return value;
}

/** RFC 9110 §5.5: optional whitespace (space, tab) around a field value is not part of it. */
function trimOws(raw: string): string {
  let start = 0;
  let end = raw.length;
  while (start < end && isOws(raw.charCodeAt(start))) start++;
  while (end > start && isOws(raw.charCodeAt(end - 1))) end--;
  return start === 0 && end === raw.length ? raw : raw.slice(start, end);
}

function isOws(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

/**
 * The headers a client mirrors from a modern request: `Mcp-Method`, `Mcp-Name` for the methods that name a
 * target, and for tools/call one `Mcp-Param-{X}` per annotation whose argument is a string, number or
 * boolean (absent and null arguments get no header). `checkMirroredHeaders` accepts exactly these.
 */
export function mirroredHeaders(
  method: string,
  params: Record<string, unknown> | undefined,
  annotations?: readonly HeaderAnnotation[],
): Record<string, string> {
  const headers: Record<string, string> = { 'Mcp-Method': method };
  const field = NAME_SOURCES.get(method);
  const name = field === undefined ? undefined : params?.[field];
  if (typeof name === 'string') headers['Mcp-Name'] = encodeHeaderValue(name);
  if (method === 'tools/call' && annotations !== undefined) {
    for (const a of annotations) {
      const value = valueAt(params?.arguments, a.path);
      if (isScalar(value)) headers['Mcp-Param-' + a.header] = encodeHeaderValue(value);
    }
  }
  return headers;
}

/**
 * Step 4 of the modern validation order: `MCP-Protocol-Version` must be present and equal the envelope's
 * protocolVersion claim. Run it before the unsupported-version check: a mismatch wins over -32022.
 */
export function checkVersionHeader(claim: string, header: HeaderLookup): HeaderMismatch | undefined {
  return plainMatch(
    'MCP-Protocol-Version',
    '_meta["io.modelcontextprotocol/protocolVersion"]',
    claim,
    header,
  );
}

/**
 * Step 4: `Mcp-Method` must equal the body's method (case-sensitive). It is required on requests; pass
 * `required: false` for a notification, whose header is then checked only when sent.
 */
export function checkMethodHeader(
  method: string,
  header: HeaderLookup,
  required = true,
): HeaderMismatch | undefined {
  if (!required && header('mcp-method') === undefined) return undefined;
  return plainMatch('Mcp-Method', 'method', method, header);
}

/**
 * Step 8: `Mcp-Name` must be present and decode to `params.name` (tools/call, prompts/get), `params.uri`
 * (resources/read) or `params.taskId` (tasks/get|update|cancel). Other methods have no name and the header
 * is ignored; a body whose name is not a string is left to params validation.
 */
export function checkNameHeader(
  method: string,
  params: Record<string, unknown> | undefined,
  header: HeaderLookup,
): HeaderMismatch | undefined {
  const field = NAME_SOURCES.get(method);
  if (field === undefined) return undefined;
  const body = params?.[field];
  if (typeof body !== 'string') return undefined;
  const raw = header('mcp-name');
  if (raw === undefined) return absent('Mcp-Name', field, body);
  const decoded = decodeHeaderValue(raw);
  if (decoded === undefined) return malformed('Mcp-Name', raw, body);
  return decoded === body ? undefined : differs('Mcp-Name', field, body, raw);
}

/**
 * Step 10, tools/call only: each annotated argument that is a string, number or boolean needs its
 * `Mcp-Param-{X}` header, decoding to the same value (integers compared numerically, so `42.0` matches 42;
 * booleans as `true`/`false`). A header sent for an argument that is absent, null or not a scalar is a
 * mismatch too: the spec tells the client to omit it, and a header with nothing behind it in the body is the
 * header/body disagreement the check exists to stop. Headers of no annotation are ignored.
 */
export function checkParamHeaders(
  params: Record<string, unknown> | undefined,
  header: HeaderLookup,
  annotations: readonly HeaderAnnotation[] | undefined,
): HeaderMismatch | undefined {
  if (annotations === undefined) return undefined;
  const args = params?.arguments;
  for (const a of annotations) {
    const raw = header('mcp-param-' + a.header.toLowerCase());
    const value = valueAt(args, a.path);
    if (!isScalar(value)) {
      if (raw === undefined) continue;
      const name = 'Mcp-Param-' + a.header;
      const carried = value === undefined ? 'no ' + a.path.join('.') : a.path.join('.') + '=' + show(value);
      return {
        header: name,
        message: `${DISAGREE}the body carries ${carried} but the ${name} header is ${show(raw)}`,
        body: value,
        received: raw,
      };
    }
    if (raw === undefined) return absent('Mcp-Param-' + a.header, a.path.join('.'), value);
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return malformed('Mcp-Param-' + a.header, raw, value);
    if (!sameValue(decoded, value)) return differs('Mcp-Param-' + a.header, a.path.join('.'), value, raw);
  }
  return undefined;
}

/**
 * Steps 4, 8 and 10 at once, for a caller that runs nothing between them: the method header, then the name,
 * then (tools/call) the annotated arguments. The first mismatch, or undefined.
 */
export function checkMirroredHeaders(
  method: string,
  params: Record<string, unknown> | undefined,
  header: HeaderLookup,
  annotations?: readonly HeaderAnnotation[],
): HeaderMismatch | undefined {
  return (
    checkMethodHeader(method, header) ??
    checkNameHeader(method, params, header) ??
    (method === 'tools/call' ? checkParamHeaders(params, header, annotations) : undefined)
  );
}

/**
 * A message saying why the request carries too many `Mcp-*` headers (count or total size of names and
 * values over `limits`), or undefined. Run it before reading any of them; answering 431 suits it.
 */
export function tooManyMcpHeaders(
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
  limits: McpHeaderLimits = {},
): string | undefined {
  const maxCount = limits.maxCount ?? 64;
  const maxBytes = limits.maxBytes ?? 16 * 1024;
  let count = 0;
  let bytes = 0;
  for (const name in headers) {
    if (!MCP_HEADER.test(name)) continue;
    const value = headers[name];
    if (value === undefined) continue;
    if (typeof value === 'string') {
      count++;
      bytes += name.length + value.length;
    } else {
      count += value.length;
      for (const one of value) bytes += name.length + one.length;
    }
  }
  if (count > maxCount) {
    return `Request Header Fields Too Large: ${count} Mcp-* headers, more than the limit of ${maxCount}`;
  }
  if (bytes > maxBytes) {
    return `Request Header Fields Too Large: ${bytes} bytes of Mcp-* headers, more than the limit of ${maxBytes}`;
  }
  return undefined;
}

/** A header that is never base64 (version, method), compared after trimming OWS. */
function plainMatch(
  name: string,
  label: string,
  body: string,
  header: HeaderLookup,
): HeaderMismatch | undefined {
  const raw = header(name.toLowerCase());
  if (raw === undefined) return absent(name, label, body);
  return trimOws(raw) === body ? undefined : differs(name, label, body, raw);
}

/** The instance at `path` (own properties only: a property named `constructor` is not Object's). */
function valueAt(args: unknown, path: readonly string[]): unknown {
  let value = args;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) {
      return undefined;
    }
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function sameValue(decoded: string, body: string | number | boolean): boolean {
  if (typeof body === 'string') return decoded === body;
  if (typeof body === 'boolean') return decoded === (body ? 'true' : 'false');
  return DECIMAL.test(decoded) && Number(decoded) === body;
}

function absent(name: string, label: string, body: unknown): HeaderMismatch {
  return {
    header: name,
    message: `${DISAGREE}the body carries ${label}=${show(body)} but the ${name} header is absent`,
    body,
  };
}

function differs(name: string, label: string, body: unknown, raw: string): HeaderMismatch {
  return {
    header: name,
    message: `${DISAGREE}the body carries ${label}=${show(body)} but the ${name} header is ${show(raw)}`,
    body,
    received: raw,
  };
}

function malformed(name: string, raw: string, body: unknown): HeaderMismatch {
  return {
    header: name,
    message:
      `Bad Request: the ${name} header ${show(raw)} is not a valid value: send visible ASCII as it is, ` +
      'anything else as =?base64?{canonical padded base64 of its UTF-8}?=',
    body,
    received: raw,
  };
}

/** A value for a message: JSON, cut short so a huge argument or header cannot swell the answer. */
function show(value: unknown): string {
  const limit = 80;
  if (typeof value === 'string') {
    return value.length > limit ? JSON.stringify(value.slice(0, limit)) + '…' : JSON.stringify(value);
  }
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = '(' + typeof value + ')';
  }
  return text.length > limit ? text.slice(0, limit) + '…' : text;
}
