/**
 * RFC 6570 URI templates (level 4) for MCP resource templates: parse once, expand, and match a concrete URI
 * back to its variables with a hand-written scanner that runs in time linear in the URI's length.
 *
 * Associative-array values (the RFC's `keys` examples) are not supported: a variable is a string or a list.
 */

import { encode, isPctTriplet, PERCENT } from './uri-template-encoding.js';
import { matchScans, planScans, type Scan } from './uri-template-matching.js';
import { type Expression, type Operator, parse } from './uri-template-syntax.js';

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

const DEFAULT_MAX_URI_LENGTH = 65536;
const DEFAULT_MAX_TEMPLATE_LENGTH = 8192;

/**
 * A parsed RFC 6570 URI template. The constructor throws an Error naming the problem and its index when
 * the template is malformed; `expand` and `match` never re-parse.
 *
 * `match` is the inverse of `expand` where the template leaves no choice. Where it does, the rules are:
 * - parts are matched left to right and no decision is revisited, so the work is linear in the URI;
 * - each expression takes the shortest extent that lets the rest of the template begin (see `Scan` in
 *   uri-template-matching.ts); so `{a}-{b}` on `x-y-z` gives `a='x'`, `b='y-z'`, and `{/a}/x` on `/x/x` does not match;
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
    return matchScans(this.#scans, uri);
  }

  /** The template as it was written. */
  toString(): string {
    return this.#source;
  }
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
