/*
 * The `x-mcp-header` annotations of a tool's input schema (spec 2026-07-28, transports/streamable-http
 * §Custom Headers from Tool Parameters): which arguments a client mirrors into `Mcp-Param-{X}` headers.
 * A tool with one invalid annotation is invalid as a whole, so this reads all of them or throws.
 */

/** One argument the client mirrors into the header `Mcp-Param-{header}`. */
export interface HeaderAnnotation {
  /** The `X` of `Mcp-Param-X`, as the schema spells it (header names compare case-insensitively). */
  header: string;
  /** The chain of `properties` keys from the arguments object to the value. */
  path: string[];
  /** How the value is written into the header. */
  type: 'string' | 'integer' | 'boolean';
}

const KEYWORD = 'x-mcp-header';

/** RFC 9110 §5.6.2: token = 1*tchar. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Keywords whose values are instances, not schemas: an `x-mcp-header` key inside them is data. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);

/** Deeper than this, a schema is refused rather than walked (a hostile or cyclic one would never end). */
const MAX_DEPTH = 64;

const MIRRORABLE = new Set(['string', 'integer', 'boolean']);

/**
 * Every `x-mcp-header` annotation of `inputSchema`, in document order. Throws an Error naming the rule and
 * the schema location (`#/properties/...`) when one is invalid: empty, not an RFC 9110 token, a duplicate of
 * another (case-insensitively), on a property whose `type` is not string, integer or boolean (optionally
 * with "null"), or reached other than through a chain of `properties` (items, anyOf, $ref, $defs, ...).
 * A server calls it when a tool is registered; a client drops a listed tool that makes it throw.
 */
export function headerAnnotations(inputSchema: unknown): HeaderAnnotation[] {
  const found: HeaderAnnotation[] = [];
  const where: string[] = [];
  walk(inputSchema, [], where, found);
  return found;
}

/**
 * Visits `node` at `where` (keys from the root). `chain` holds the property names while every step so far
 * was `properties`, and is null once the walk has left that chain.
 */
function walk(node: unknown, chain: string[] | null, where: string[], found: HeaderAnnotation[]): void {
  if (typeof node !== 'object' || node === null) return;
  if (where.length > MAX_DEPTH * 2) {
    throw new Error(`Invalid tool inputSchema: nested deeper than ${MAX_DEPTH} levels at ${pointer(where)}`);
  }
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) descend(node[i], null, where, String(i), found);
    return;
  }
  const schema = node as Record<string, unknown>;
  if (Object.hasOwn(schema, KEYWORD)) found.push(annotation(schema, chain, where, found));
  for (const key of Object.keys(schema)) {
    if (key === KEYWORD || DATA_KEYWORDS.has(key)) continue;
    const value = schema[key];
    if (key === 'properties' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      where.push(key);
      for (const name of Object.keys(value)) {
        descend(
          (value as Record<string, unknown>)[name],
          chain === null ? null : [...chain, name],
          where,
          name,
          found,
        );
      }
      where.pop();
    } else {
      descend(value, null, where, key, found);
    }
  }
}

function descend(
  node: unknown,
  chain: string[] | null,
  where: string[],
  key: string,
  found: HeaderAnnotation[],
): void {
  where.push(key);
  walk(node, chain, where, found);
  where.pop();
}

function annotation(
  schema: Record<string, unknown>,
  chain: string[] | null,
  where: readonly string[],
  found: readonly HeaderAnnotation[],
): HeaderAnnotation {
  const header = schema[KEYWORD];
  if (typeof header !== 'string') invalid(where, 'the value must be a string');
  if (header === '') invalid(where, 'the value must not be empty');
  if (!TOKEN.test(header)) {
    invalid(
      where,
      `${JSON.stringify(header)} is not an RFC 9110 token (letters, digits and !#$%&'*+-.^_\`|~ only)`,
    );
  }
  if (chain === null || chain.length === 0) {
    invalid(where, 'only a property reached from the schema root through "properties" alone may be mirrored');
  }
  const lower = header.toLowerCase();
  const twin = found.find((a) => a.header.toLowerCase() === lower);
  if (twin !== undefined) {
    const twinAt = pointer(twin.path.flatMap((name) => ['properties', name]));
    invalid(
      where,
      `${JSON.stringify(header)} repeats the header of ${twinAt} (names compare case-insensitively)`,
    );
  }
  const type = mirroredType(schema.type);
  if (type === undefined) {
    invalid(
      where,
      `the property's type must be "string", "integer" or "boolean" (optionally with "null"), got ` +
        (schema.type === undefined ? 'none' : JSON.stringify(schema.type)) +
        (JSON.stringify(schema.type ?? '').includes('"number"')
          ? ' (only integers are mirrored, not numbers)'
          : ''),
    );
  }
  return { header, path: chain, type };
}

function invalid(where: readonly string[], rule: string): never {
  throw new Error(`Invalid x-mcp-header at ${pointer(where)}: ${rule}`);
}

/** The header type of a JSON Schema `type`: one mirrorable type, optionally beside "null". */
function mirroredType(type: unknown): HeaderAnnotation['type'] | undefined {
  if (typeof type === 'string') return MIRRORABLE.has(type) ? (type as HeaderAnnotation['type']) : undefined;
  if (!Array.isArray(type)) return undefined;
  let picked: HeaderAnnotation['type'] | undefined;
  for (const t of type) {
    if (t === 'null') continue;
    if (picked !== undefined || typeof t !== 'string' || !MIRRORABLE.has(t)) return undefined;
    picked = t as HeaderAnnotation['type'];
  }
  return picked;
}

/** A JSON Pointer fragment (RFC 6901) of the location, for messages. */
function pointer(where: readonly string[]): string {
  let out = '#';
  for (const key of where) out += '/' + key.replaceAll('~', '~0').replaceAll('/', '~1');
  return out;
}
