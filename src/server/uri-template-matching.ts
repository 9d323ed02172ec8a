/**
 * Matching a URI against a parsed template: {@link planScans} once per template, then {@link matchScans} per
 * URI, left to right without backtracking, so the work is linear in the URI. The rules for ambiguity are in
 * the comment of `UriTemplate`.
 */

import type { UriTemplateMatch } from './uri-template.js';
import { decode, isPctTriplet, PERCENT } from './uri-template-encoding.js';
import type { Expression, Operator, Varspec } from './uri-template-syntax.js';

/**
 * One expression as the matcher scans it. Its extent ends at the first place the rest of the template
 * can begin: the first occurrence of `literal` (the next literal of the template), or the first of `stops`
 * (the leading characters of the expressions that follow directly, any of which may be absent), or — when
 * `munch` (an expression without a leading character comes next, so no boundary is visible) — the first
 * character this operator cannot produce.
 */
export interface Scan extends Expression {
  readonly literal: string | undefined;
  readonly stops: string;
  readonly munch: boolean;
}

/** Merges expressions that expand as one (`{?a}{&b}` is `{?a,b}`) and works out where each one ends. */
export function planScans(parts: (string | Expression)[]): (string | Scan)[] {
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

/** The variables when `uri` is an expansion of the template `scans` was planned from, else undefined. */
export function matchScans(scans: (string | Scan)[], uri: string): UriTemplateMatch | undefined {
  const out: UriTemplateMatch = {};
  let pos = 0;
  for (const scan of scans) {
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
