/**
 * RFC 6570 URI templates (level 4) for MCP resource templates: parse once, expand, and match a concrete URI
 * back to its variables with a hand-written scanner that runs in time linear in the URI's length.
 *
 * Associative-array values (the RFC's `keys` examples) are not supported: a variable is a string or a list.
 */

/** Variable values for {@link UriTemplate.expand}; `undefined` and empty lists are omitted, as the RFC says. */
export type UriTemplateVariables = Record<string, string | string[] | undefined>;

/** Variables extracted by {@link UriTemplate.match}. */
export type UriTemplateMatch = Record<string, string | string[]>;

export interface UriTemplateOptions {
  /** URIs longer than this never match (default 65536 characters). */
  maxUriLength?: number;
  /** Longer templates are rejected by the constructor (default 8192 characters). */
  maxTemplateLength?: number;
}

/** How one operator expands (RFC 6570 appendix A), plus the characters its output may hold. */
interface Operator {
  /** Written before the first defined variable. */
  readonly first: string;
  /** Written between defined variables and between exploded list items. */
  readonly sep: string;
  /** Whether each value is written as `name=value`. */
  readonly named: boolean;
  /** Written after the name when a named value is empty. */
  readonly ifemp: string;
  /** Whether reserved characters and pct-encoded triplets pass through unencoded (`+` and `#`). */
  readonly reserved: boolean;
  /** ASCII characters an expansion body can contain (non-ASCII is accepted too, as in an IRI). */
  readonly allow: Uint8Array;
}

interface Varspec {
  readonly name: string;
  readonly explode: boolean;
  /** Maximum length from a `:N` modifier; 0 when there is none. */
  readonly prefix: number;
  /** A prefix occurrence of a variable that also appears whole: match takes the whole one. */
  shadowed: boolean;
}

interface Expression {
  readonly op: Operator;
  readonly vars: Varspec[];
}

/**
 * One expression as the matcher scans it. Its extent ends at the first place the rest of the template
 * can begin: the first occurrence of `literal` (the next literal of the template), or the first of `stops`
 * (the leading characters of the expressions that follow directly, any of which may be absent), or — when
 * `munch` (an expression without a leading character comes next, so no boundary is visible) — the first
 * character this operator cannot produce.
 */
interface Scan extends Expression {
  readonly literal: string | undefined;
  readonly stops: string;
  readonly munch: boolean;
}

const UNRESERVED = 1;
const RESERVED = 2;
const CLASS = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~') {
  CLASS[c.charCodeAt(0)] = UNRESERVED;
}
for (const c of ":/?#[]@!$&'()*+,;=") CLASS[c.charCodeAt(0)] = RESERVED;

const PERCENT = 37;
const HEX_DIGITS = '0123456789ABCDEF';

function operator(first: string, sep: string, named: boolean, ifemp: string, reserved: boolean): Operator {
  const allow = new Uint8Array(128);
  for (let c = 0; c < 128; c++) {
    if (CLASS[c] === UNRESERVED || (reserved && CLASS[c] === RESERVED)) allow[c] = 1;
  }
  allow[PERCENT] = 1;
  // Structural characters: the list separator, the variable separator, and `=` of named pairs.
  allow[44] = 1;
  allow[sep.charCodeAt(0)] = 1;
  if (named) allow[61] = 1;
  return { first, sep, named, ifemp, reserved, allow };
}

const SIMPLE = operator('', ',', false, '', false);
const OPERATORS: Record<string, Operator> = {
  '+': operator('', ',', false, '', true),
  '#': operator('#', ',', false, '', true),
  '.': operator('.', '.', false, '', false),
  '/': operator('/', '/', false, '', false),
  ';': operator(';', ';', true, '', false),
  '?': operator('?', '&', true, '=', false),
  '&': operator('&', '&', true, '=', false),
};
/** Operator characters RFC 6570 reserves for future extensions. */
const RESERVED_OPERATORS = '=,!@|';

const DEFAULT_MAX_URI_LENGTH = 65536;
const DEFAULT_MAX_TEMPLATE_LENGTH = 8192;

/**
 * A parsed RFC 6570 URI template. The constructor throws an Error naming the problem and its index when
 * the template is malformed; `expand` and `match` never re-parse.
 *
 * `match` is the inverse of `expand` where the template leaves no choice. Where it does, the rules are:
 * - parts are matched left to right and no decision is revisited, so the work is linear in the URI;
 * - each expression takes the shortest extent that lets the rest of the template begin (see {@link Scan});
 *   so `{a}-{b}` on `x-y-z` gives `a='x'`, `b='y-z'`, and `{/a}/x` on `/x/x` does not match;
 * - an expression with nothing after it takes the rest of the URI;
 * - a simple or reserved expression that matched nothing is absent (expansion cannot tell `''` from
 *   undefined there): `items/{id}` matches `items/` with no `id`;
 * - within one expression, values fill the variables in order; an exploded variable takes every item but
 *   one for each variable after it; the last variable of a comma-separated expression takes the rest;
 * - a raw `,` in a non-reserved value separates list items (expansion encodes a value's own commas), so a
 *   one-item list comes back as a string; in `{+var}` and `{#var}` commas stay in the string;
 * - exploded variables always come back as arrays;
 * - query-style parameters (`{?q,limit}`, and `{?q}{&limit}` which expands the same) may come in any order
 *   and may be missing; an unknown or repeated (non-exploded) parameter means no match;
 * - values are percent-decoded (reserved expansions too); invalid UTF-8 means no match; raw non-ASCII
 *   characters are accepted in values, as in an IRI;
 * - a variable that appears twice takes its first whole occurrence; a `:N` prefix occurrence gives the
 *   prefix only when the variable never appears whole.
 */
export class UriTemplate {
  /** The names of the template's variables, each once, in order of first appearance. */
  readonly variableNames: string[];
  readonly #source: string;
  readonly #parts: (string | Expression)[];
  readonly #scans: (string | Scan)[];
  readonly #maxUriLength: number;

  constructor(template: string, options: UriTemplateOptions = {}) {
    const maxTemplate = options.maxTemplateLength ?? DEFAULT_MAX_TEMPLATE_LENGTH;
    if (template.length > maxTemplate) {
      throw new Error(`URI template is ${template.length} characters long; the limit is ${maxTemplate}`);
    }
    this.#source = template;
    this.#maxUriLength = options.maxUriLength ?? DEFAULT_MAX_URI_LENGTH;
    this.#parts = parse(template);
    const names = new Set<string>();
    const whole = new Set<string>();
    for (const part of this.#parts) {
      if (typeof part === 'string') continue;
      for (const spec of part.vars) {
        names.add(spec.name);
        if (spec.prefix === 0) whole.add(spec.name);
      }
    }
    for (const part of this.#parts) {
      if (typeof part === 'string') continue;
      for (const spec of part.vars) spec.shadowed = spec.prefix > 0 && whole.has(spec.name);
    }
    this.variableNames = [...names];
    this.#scans = planScans(this.#parts);
  }

  /**
   * Expands the template (RFC 6570 section 3): each value is percent-encoded as its operator requires
   * (UTF-8, uppercase hex). Throws when a `:N` prefix modifier meets a list value, which the RFC forbids.
   */
  expand(vars: UriTemplateVariables): string {
    let out = '';
    for (const part of this.#parts) out += typeof part === 'string' ? part : expandExpression(part, vars);
    return out;
  }

  /**
   * The variables when `uri` is an expansion of this template, else undefined. Runs in time linear in the
   * URI's length (with a factor bounded by the template), and URIs past `maxUriLength` never match.
   * See the class comment for how ambiguity is resolved.
   */
  match(uri: string): UriTemplateMatch | undefined {
    if (uri.length > this.#maxUriLength) return undefined;
    const out: UriTemplateMatch = {};
    let pos = 0;
    for (const scan of this.#scans) {
      if (typeof scan === 'string') {
        if (!uri.startsWith(scan, pos)) return undefined;
        pos += scan.length;
        continue;
      }
      const end = extent(scan, uri, pos);
      if (end < 0 || !matchExpression(scan, uri, pos, end, out)) return undefined;
      pos = end;
    }
    return pos === uri.length ? out : undefined;
  }

  /** The template as it was written. */
  toString(): string {
    return this.#source;
  }
}

// --- parsing ---

function parse(template: string): (string | Expression)[] {
  const fail = (problem: string, index: number): never => {
    throw new Error(`Invalid URI template ${JSON.stringify(template)} at index ${index}: ${problem}`);
  };
  const parts: (string | Expression)[] = [];
  let literalStart = 0;
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c === '}') fail("unmatched '}'", i);
    if (c !== '{') continue;
    if (i > literalStart) parts.push(encode(template.slice(literalStart, i), true));
    const close = template.indexOf('}', i + 1);
    const open = template.indexOf('{', i + 1);
    if (close < 0 || (open >= 0 && open < close)) fail("unclosed '{'", i);
    parts.push(parseExpression(template, i + 1, close, fail));
    i = close;
    literalStart = close + 1;
  }
  if (literalStart < template.length) parts.push(encode(template.slice(literalStart), true));
  return parts;
}

function parseExpression(
  template: string,
  start: number,
  end: number,
  fail: (problem: string, index: number) => never,
): Expression {
  if (start === end) fail('empty expression', start - 1);
  const c = template[start];
  let op = SIMPLE;
  let i = start;
  if (Object.hasOwn(OPERATORS, c)) {
    op = OPERATORS[c];
    i++;
  } else if (RESERVED_OPERATORS.includes(c)) {
    fail(`operator '${c}' is reserved by RFC 6570 and not supported`, start);
  }
  const vars: Varspec[] = [];
  for (;;) {
    const comma = indexWithin(template, ',', i, end);
    vars.push(parseVarspec(template, i, comma, fail));
    if (comma === end) return { op, vars };
    i = comma + 1;
  }
}

function parseVarspec(
  template: string,
  start: number,
  end: number,
  fail: (problem: string, index: number) => never,
): Varspec {
  let nameEnd = end;
  let explode = false;
  let prefix = 0;
  const colon = indexWithin(template, ':', start, end);
  if (colon < end) {
    nameEnd = colon;
    prefix = parsePrefix(template, colon + 1, end);
    if (prefix === 0)
      fail(`bad prefix modifier '${template.slice(colon, end)}' (expected :1 to :9999)`, colon);
  } else if (end > start && template[end - 1] === '*') {
    explode = true;
    nameEnd = end - 1;
  }
  if (nameEnd === start) fail('empty variable name', start);
  if (!isVarname(template, start, nameEnd)) {
    fail(`bad variable name '${template.slice(start, nameEnd)}'`, start);
  }
  return { name: template.slice(start, nameEnd), explode, prefix, shadowed: false };
}

/** The index of `ch` in `s[from, to)`, or `to`: the search never runs past the expression. */
function indexWithin(s: string, ch: string, from: number, to: number): number {
  for (let i = from; i < to; i++) if (s[i] === ch) return i;
  return to;
}

/** The max-length in `template[start, end)` (1 to 9999, no leading zero), or 0 when it is not one. */
function parsePrefix(template: string, start: number, end: number): number {
  if (end === start || end - start > 4 || template[start] === '0') return 0;
  let n = 0;
  for (let i = start; i < end; i++) {
    const d = template.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return 0;
    n = n * 10 + d;
  }
  return n;
}

/** varname = varchar *( ["."] varchar ); varchar = ALPHA / DIGIT / "_" / pct-encoded. */
function isVarname(template: string, start: number, end: number): boolean {
  let afterVarchar = false;
  for (let i = start; i < end; i++) {
    const c = template.charCodeAt(i);
    if (c === 46) {
      if (!afterVarchar) return false;
      afterVarchar = false;
    } else if (c === PERCENT) {
      if (i + 2 >= end || !isPctTriplet(template, i)) return false;
      i += 2;
      afterVarchar = true;
    } else if (c === 95 || (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) {
      afterVarchar = true;
    } else {
      return false;
    }
  }
  return afterVarchar;
}

/** Merges expressions that expand as one (`{?a}{&b}` is `{?a,b}`) and works out where each one ends. */
function planScans(parts: (string | Expression)[]): (string | Scan)[] {
  const merged: (string | Expression)[] = [];
  for (const part of parts) {
    const prev = merged[merged.length - 1];
    if (typeof part !== 'string' && typeof prev === 'object' && continues(prev.op, part.op)) {
      merged[merged.length - 1] = { op: prev.op, vars: [...prev.vars, ...part.vars] };
    } else {
      merged.push(part);
    }
  }
  return merged.map((part, index) => {
    if (typeof part === 'string') return part;
    let stops = '';
    let next = index + 1;
    for (; next < merged.length; next++) {
      const following = merged[next];
      if (typeof following === 'string' || following.op.first === '') break;
      stops += following.op.first;
    }
    const munch = typeof merged[next] === 'object';
    while (next < merged.length && typeof merged[next] !== 'string') next++;
    return { ...part, literal: merged[next] as string | undefined, stops, munch };
  });
}

/** Whether `{b…}` right after `{a…}` expands exactly as one expression of operator `a` would. */
function continues(a: Operator, b: Operator): boolean {
  return b.first !== '' && b.first === a.sep && b.sep === a.sep;
}

// --- expansion ---

function expandExpression(expr: Expression, vars: UriTemplateVariables): string {
  const { op } = expr;
  let out = '';
  let defined = false;
  for (const spec of expr.vars) {
    const value = vars[spec.name];
    let text: string;
    if (typeof value === 'string') {
      const enc = encode(spec.prefix > 0 ? truncate(value, spec.prefix, op.reserved) : value, op.reserved);
      text = op.named ? named(spec.name, enc, op) : enc;
    } else if (Array.isArray(value) && value.length > 0) {
      if (spec.prefix > 0) {
        throw new Error(
          `URI template: prefix modifier ':${spec.prefix}' cannot apply to list '${spec.name}'`,
        );
      }
      text = spec.explode ? explodeList(spec.name, value, op) : joinList(spec.name, value, op);
    } else {
      continue;
    }
    out += (defined ? op.sep : op.first) + text;
    defined = true;
  }
  return out;
}

function named(name: string, encoded: string, op: Operator): string {
  return encoded === '' ? name + op.ifemp : name + '=' + encoded;
}

function joinList(name: string, list: string[], op: Operator): string {
  let joined = encode(list[0], op.reserved);
  for (let i = 1; i < list.length; i++) joined += ',' + encode(list[i], op.reserved);
  return op.named ? named(name, joined, op) : joined;
}

function explodeList(name: string, list: string[], op: Operator): string {
  let out = '';
  for (let i = 0; i < list.length; i++) {
    const enc = encode(list[i], op.reserved);
    out += (i === 0 ? '' : op.sep) + (op.named ? named(name, enc, op) : enc);
  }
  return out;
}

/**
 * Percent-encodes what `reserved` does not let through: unreserved characters always pass; reserved
 * characters and existing pct-encoded triplets pass when `reserved`. Returns `value` itself when nothing
 * needs encoding. A lone surrogate is encoded as U+FFFD.
 */
function encode(value: string, reserved: boolean): string {
  const mask = reserved ? UNRESERVED | RESERVED : UNRESERVED;
  let out: string | undefined;
  let copied = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 128 && (CLASS[c] & mask) !== 0) continue;
    if (reserved && c === PERCENT && isPctTriplet(value, i)) {
      i += 2;
      continue;
    }
    out = (out ?? '') + value.slice(copied, i);
    let cp = c;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < value.length) {
      const low = value.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        cp = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
        i++;
      }
    }
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    out += utf8Percent(cp);
    copied = i + 1;
  }
  return out === undefined ? value : out + value.slice(copied);
}

function utf8Percent(cp: number): string {
  if (cp < 0x80) return pct(cp);
  if (cp < 0x800) return pct(0xc0 | (cp >> 6)) + pct(0x80 | (cp & 63));
  if (cp < 0x10000) return pct(0xe0 | (cp >> 12)) + pct(0x80 | ((cp >> 6) & 63)) + pct(0x80 | (cp & 63));
  return (
    pct(0xf0 | (cp >> 18)) +
    pct(0x80 | ((cp >> 12) & 63)) +
    pct(0x80 | ((cp >> 6) & 63)) +
    pct(0x80 | (cp & 63))
  );
}

function pct(byte: number): string {
  return '%' + HEX_DIGITS[byte >> 4] + HEX_DIGITS[byte & 15];
}

/** The first `max` characters of `value`: code points, and with `reserved` a pct-encoded triplet counts once. */
function truncate(value: string, max: number, reserved: boolean): string {
  let i = 0;
  for (let n = 0; n < max && i < value.length; n++) {
    const c = value.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < value.length) {
      const low = value.charCodeAt(i + 1);
      i += low >= 0xdc00 && low <= 0xdfff ? 2 : 1;
    } else if (reserved && c === PERCENT && isPctTriplet(value, i)) {
      i += 3;
    } else {
      i++;
    }
  }
  return i >= value.length ? value : value.slice(0, i);
}

function isPctTriplet(s: string, i: number): boolean {
  return isHex(s.charCodeAt(i + 1)) && isHex(s.charCodeAt(i + 2));
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

// --- matching ---

/** Where the expression starting at `pos` ends (see {@link Scan}), or -1 when the next literal is absent. */
function extent(scan: Scan, uri: string, pos: number): number {
  const limit = scan.literal === undefined ? uri.length : uri.indexOf(scan.literal, pos);
  if (limit < 0) return -1;
  if (limit === pos || isStop(scan.stops, uri.charCodeAt(pos))) return pos;
  let i = pos;
  const { op } = scan;
  if (op.first !== '') {
    if (uri[pos] !== op.first) return pos;
    i++;
  }
  for (; i < limit; i++) {
    const c = uri.charCodeAt(i);
    if (isStop(scan.stops, c) || (scan.munch && !allowed(op, c))) break;
  }
  return i;
}

function isStop(stops: string, c: number): boolean {
  for (let i = 0; i < stops.length; i++) if (stops.charCodeAt(i) === c) return true;
  return false;
}

function allowed(op: Operator, c: number): boolean {
  return c >= 128 || op.allow[c] === 1;
}

/** Reads `uri[start, end)` as an expansion of `scan` into `out`; false when it cannot be one. */
function matchExpression(
  scan: Scan,
  uri: string,
  start: number,
  end: number,
  out: UriTemplateMatch,
): boolean {
  if (start === end) return true;
  const { op } = scan;
  let i = start;
  if (op.first !== '') {
    if (uri[i] !== op.first) return false;
    i++;
  }
  for (let j = i; j < end; j++) {
    const c = uri.charCodeAt(j);
    if (!allowed(op, c)) return false;
    if (c === PERCENT) {
      if (j + 2 >= end || !isPctTriplet(uri, j)) return false;
      j += 2;
    }
  }
  const body = uri.slice(i, end);
  const values = op.named ? namedValues(scan.vars, body, op.sep) : positionalValues(scan.vars, body, op);
  if (values === undefined) return false;
  for (let k = 0; k < values.length; k++) {
    const value = values[k];
    const spec = scan.vars[k];
    if (value === undefined || spec.shadowed || Object.hasOwn(out, spec.name)) continue;
    // A plain assignment to '__proto__' (a valid varname) would set the prototype instead.
    if (spec.name === '__proto__') {
      Object.defineProperty(out, spec.name, { value, enumerable: true, writable: true, configurable: true });
    } else {
      out[spec.name] = value;
    }
  }
  return true;
}

type Values = (string | string[] | undefined)[];

/** `name=value` pairs in any order; each must name a variable of the expression. */
function namedValues(vars: Varspec[], body: string, sep: string): Values | undefined {
  const values: Values = new Array(vars.length);
  for (const param of body.split(sep)) {
    if (param === '') continue;
    const eq = param.indexOf('=');
    const name = eq < 0 ? param : param.slice(0, eq);
    let k = 0;
    while (k < vars.length && vars[k].name !== name) k++;
    if (k === vars.length) return undefined;
    const raw = eq < 0 ? '' : param.slice(eq + 1);
    if (vars[k].explode) {
      const item = decode(raw);
      if (item === undefined) return undefined;
      const list = values[k];
      if (Array.isArray(list)) list.push(item);
      else values[k] = [item];
    } else {
      if (values[k] !== undefined) return undefined;
      const value = listOrString(raw);
      if (value === undefined) return undefined;
      values[k] = value;
    }
  }
  return values;
}

/** Values separated by the operator's separator, filling the variables in order. */
function positionalValues(vars: Varspec[], body: string, op: Operator): Values | undefined {
  const segments = body.split(op.sep);
  const values: Values = new Array(vars.length);
  const commaSeparated = op.sep === ',';
  let s = 0;
  let offset = 0; // of segments[s] in body
  for (let k = 0; k < vars.length && s < segments.length; k++) {
    const later = vars.length - 1 - k;
    let take = 1;
    let value: string | string[] | undefined;
    if (vars[k].explode) {
      take = Math.max(1, segments.length - s - later);
      value = decodeAll(segments, s, s + take);
    } else if (later === 0 && commaSeparated) {
      take = segments.length - s;
      if (op.reserved) value = decode(body.slice(offset));
      else value = take === 1 ? decode(segments[s]) : decodeAll(segments, s, s + take);
    } else {
      value = commaSeparated ? decode(segments[s]) : listOrString(segments[s]);
    }
    if (value === undefined) return undefined;
    values[k] = value;
    for (const end = s + take; s < end; s++) offset += segments[s].length + 1;
  }
  return s === segments.length ? values : undefined;
}

function listOrString(raw: string): string | string[] | undefined {
  if (!raw.includes(',')) return decode(raw);
  const items = raw.split(',');
  return decodeAll(items, 0, items.length);
}

function decodeAll(items: string[], from: number, to: number): string[] | undefined {
  const out: string[] = [];
  for (let i = from; i < to; i++) {
    const item = decode(items[i]);
    if (item === undefined) return undefined;
    out.push(item);
  }
  return out;
}

/** Percent-decodes as UTF-8; undefined when the octets are not UTF-8. */
function decode(s: string): string | undefined {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}
