/** The parsed form of an RFC 6570 template (operators, variables, expressions) and the parser that builds it. */

import { CLASS, encode, isPctTriplet, PERCENT, RESERVED, UNRESERVED } from './uri-template-encoding.js';

/** How one operator expands (RFC 6570 appendix A), plus the characters its output may hold. */
export interface Operator {
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

export interface Varspec {
  readonly name: string;
  readonly explode: boolean;
  /** Maximum length from a `:N` modifier; 0 when there is none. */
  readonly prefix: number;
  /** A prefix occurrence of a variable that also appears whole: match takes the whole one. */
  shadowed: boolean;
}

export interface Expression {
  readonly op: Operator;
  readonly vars: Varspec[];
}

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

/** The template as literals (already encoded) and expressions; throws an Error naming the problem and its index. */
export function parse(template: string): (string | Expression)[] {
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
