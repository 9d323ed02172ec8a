import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { keyPath } from '../protocol/param-checks.js';

/** A JSON Schema, as a plain object. Published to clients exactly as given. */
export type JsonSchemaObject = Record<string, unknown>;

/**
 * The Standard Schema v1 interface (https://standardschema.dev), declared here so that mcpwire's
 * published types need no package of the user's: zod 4, valibot, arktype and others implement it.
 * `jsonSchema` is the optional Standard JSON Schema converter (@standard-schema/spec 1.1).
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1Props<Input, Output>;
}

/** The `~standard` property of a Standard Schema. */
export interface StandardSchemaV1Props<Input = unknown, Output = Input> {
  readonly version: 1;
  readonly vendor: string;
  readonly validate: (
    value: unknown,
    options?: { readonly libraryOptions?: Record<string, unknown> | undefined } | undefined,
  ) => StandardSchemaV1Result<Output> | Promise<StandardSchemaV1Result<Output>>;
  readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  readonly jsonSchema?: StandardJsonSchemaConverter | undefined;
}

/** What a Standard Schema's `validate` returns: a value, or the issues that refused it. */
export type StandardSchemaV1Result<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardSchemaV1Issue> };

/** One validation issue of a Standard Schema. */
export interface StandardSchemaV1Issue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** The Standard JSON Schema converter: the JSON Schema of a schema's input or output type. */
export interface StandardJsonSchemaConverter {
  readonly input: (options: StandardJsonSchemaOptions) => Record<string, unknown>;
  readonly output: (options: StandardJsonSchemaOptions) => Record<string, unknown>;
}

/** Options of a Standard JSON Schema conversion. */
export interface StandardJsonSchemaOptions {
  readonly target: string;
  readonly libraryOptions?: Record<string, unknown> | undefined;
}

/** A tool schema as a user gives it: plain JSON Schema (2020-12 or draft-07) or a Standard Schema. */
export type SchemaInput = JsonSchemaObject | StandardSchemaV1;

/** The result of validating one value. `value` is what the handler gets (parsed, for Standard Schemas). */
export type ValidationOutcome = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * A tool schema ready for use, compiled once at registration and shared by every session.
 *
 * Promise: `json` is the JSON Schema to publish in tools/list, an object schema (`type: 'object'`),
 * the user's own object when one was given. `validate` returns a plain outcome when validation is
 * synchronous (always for JSON Schema) and a Promise only when a Standard Schema validates
 * asynchronously. A refusal's message names the failing fields from the root `arguments` (input
 * schemas) or `structuredContent` (output schemas), e.g. `arguments.a: must be number`. For input
 * schemas `validate(undefined)` validates `{}`: a call to a tool with no arguments may omit them.
 */
export interface CompiledSchema {
  readonly json: Record<string, unknown>;
  validate(value: unknown): ValidationOutcome | Promise<ValidationOutcome>;
}

/** The input schema of a tool that takes no arguments: any object. */
export const EMPTY_OBJECT_SCHEMA: Readonly<{ type: 'object' }> = Object.freeze({ type: 'object' });

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
const DRAFT_07 = 'http://json-schema.org/draft-07/schema';

// Formats are not validated: ajv-formats is not a dependency, and ajv would otherwise warn on each
// unknown format. addUsedSchema: false keeps a schema's `$id` from clashing with another tool's.
const AJV_OPTIONS = { strict: false, validateFormats: false, addUsedSchema: false };

/**
 * One ajv instance per dialect, and per way of failing, made on first use: the validator a value goes through
 * stops at its first problem (`allErrors: false`); the one that lists every problem of a value already refused
 * is compiled the first time a schema refuses one.
 */
const ajvs: Record<'2020' | '07', { first?: Ajv | Ajv2020; all?: Ajv | Ajv2020 }> = { '2020': {}, '07': {} };

// Compiled schemas by the identity of what the user gave, per kind (the root label differs).
const compiled = {
  input: new WeakMap<object, CompiledSchema>(),
  output: new WeakMap<object, CompiledSchema>(),
};

/** Problems listed in one refusal message; more are counted, not listed. */
const MAX_REPORTED = 10;

/**
 * A refused value of at most this many values (objects, arrays and scalars, counted through) is checked again
 * for every problem; a larger one reports its first. Listing every problem costs time and memory in proportion to
 * the value (a 2 MB array of a million wrong items: about 5 s and 175 MB), which no client may make a server spend.
 */
const MAX_VALUES_LISTED = 1000;

/**
 * Compiles a tool's input or output schema. Throws, naming the problem, when the schema is not an
 * object schema, names an unsupported `$schema` dialect, is not valid JSON Schema, or is a Standard
 * Schema that cannot be converted to JSON Schema. Compiling the same schema object again returns
 * the same CompiledSchema, so treat a schema as immutable once registered.
 *
 * `jsonSchema` is for Standard Schemas only: the JSON Schema to publish instead of converting one.
 */
export function compileSchema(
  input: SchemaInput,
  kind: 'input' | 'output',
  jsonSchema?: JsonSchemaObject,
): CompiledSchema {
  return compileFor(input, USES[kind], jsonSchema);
}

/** Compiles the schema of a prompt's arguments (`argsSchema`), as a tool's input schema is. */
export function compilePromptArguments(input: SchemaInput): CompiledSchema {
  return compileFor(input, USES.prompt);
}

/** What a schema is for: a tool's input or output, or a prompt's arguments; the field holding it; the root its refusals name. */
interface SchemaUse {
  readonly kind: 'input' | 'output';
  readonly field: string;
  readonly root: string;
}

const USES = {
  input: { kind: 'input', field: 'inputSchema', root: 'arguments' },
  output: { kind: 'output', field: 'outputSchema', root: 'structuredContent' },
  prompt: { kind: 'input', field: 'argsSchema', root: 'arguments' },
} as const satisfies Record<string, SchemaUse>;

function compileFor(input: SchemaInput, use: SchemaUse, jsonSchema?: JsonSchemaObject): CompiledSchema {
  if (!isObjectLike(input)) {
    throw new Error(`${use.field} must be a JSON Schema object or a Standard Schema`);
  }
  const cache = compiled[use.kind];
  let schema = jsonSchema === undefined ? cache.get(input) : undefined;
  if (schema === undefined) {
    schema = isStandardSchema(input)
      ? compileStandard(input, use, jsonSchema ?? toJsonSchema(input, use))
      : compileJson(input, use);
    if (jsonSchema === undefined) cache.set(input, schema);
  }
  return schema;
}

function compileJson(json: JsonSchemaObject, use: SchemaUse): CompiledSchema {
  assertObjectSchema(json, use);
  const dialect = dialectOf(json, use);
  let check: ValidateFunction;
  try {
    check = compileWith(dialect, 'first', json);
  } catch (cause) {
    throw new Error(`${use.field} is not a valid JSON Schema: ${(cause as Error).message}`, { cause });
  }
  let checkAll: ValidateFunction | undefined;
  const label = use.root;
  const orEmpty = use.kind === 'input';
  const problems = (data: unknown): string => {
    if (!countsAtMost(data, MAX_VALUES_LISTED)) {
      return `${describeAjv(label, check.errors)}; and perhaps more (a value this large is reported by its first problem)`;
    }
    checkAll ??= compileWith(dialect, 'all', json);
    checkAll(data);
    return describeAjv(label, checkAll.errors ?? check.errors);
  };
  return {
    json,
    validate(value) {
      const data = orEmpty && value === undefined ? {} : value;
      return check(data) ? { ok: true, value: data } : { ok: false, message: problems(data) };
    },
  };
}

function compileWith(dialect: '2020' | '07', way: 'first' | 'all', json: JsonSchemaObject): ValidateFunction {
  const held = ajvs[dialect];
  let ajv = held[way];
  if (ajv === undefined) {
    const options = { ...AJV_OPTIONS, allErrors: way === 'all' };
    ajv = dialect === '2020' ? new Ajv2020(options) : new Ajv(options);
    held[way] = ajv;
  }
  const check = ajv.compile(json);
  // The compiled validator needs no entry in ajv's own cache, which would hold every schema for the
  // life of the process; ours is a WeakMap, so a schema is freed with the last tool using it.
  ajv.removeSchema(json);
  return check;
}

/** True when `value` holds at most `limit` values, itself included; the count stops once past it. */
function countsAtMost(value: unknown, limit: number): boolean {
  const stack: unknown[] = [value];
  let counted = 1;
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next !== 'object' || next === null) continue;
    if (Array.isArray(next)) {
      counted += next.length;
      if (counted > limit) return false;
      for (const item of next) stack.push(item);
    } else {
      for (const key in next) {
        if (++counted > limit) return false;
        stack.push((next as Record<string, unknown>)[key]);
      }
    }
  }
  return true;
}

function compileStandard(schema: StandardSchemaV1, use: SchemaUse, json: JsonSchemaObject): CompiledSchema {
  assertObjectSchema(json, use);
  const standard = schema['~standard'];
  if (typeof standard.validate !== 'function') {
    throw new Error(`${use.field}: ~standard.validate is not a function`);
  }
  const label = use.root;
  const orEmpty = use.kind === 'input';
  const settle = (result: StandardSchemaV1Result<unknown>): ValidationOutcome =>
    result.issues
      ? { ok: false, message: describeIssues(label, result.issues) }
      : { ok: true, value: result.value };
  return {
    json,
    validate(value) {
      const result = standard.validate(orEmpty && value === undefined ? {} : value);
      // Promise.resolve also adopts a thenable that is not a native Promise, which callers could not detect.
      return typeof (result as PromiseLike<unknown>).then === 'function'
        ? Promise.resolve(result).then(settle)
        : settle(result as StandardSchemaV1Result<unknown>);
    },
  };
}

/** The JSON Schema of a Standard Schema through Standard JSON Schema, or an error that says what to do. */
function toJsonSchema(schema: StandardSchemaV1, use: SchemaUse): JsonSchemaObject {
  const { vendor, jsonSchema } = schema['~standard'];
  if (typeof jsonSchema?.[use.kind] !== 'function') {
    throw new Error(
      `${use.field}: this ${vendor} schema offers no JSON Schema conversion ` +
        `(~standard.jsonSchema of Standard JSON Schema); pass the JSON Schema to publish alongside it ` +
        `(\`jsonSchema\`), or ${vendorHint(vendor)}`,
    );
  }
  try {
    return jsonSchema[use.kind]({ target: 'draft-2020-12' });
  } catch (cause) {
    throw new Error(
      `${use.field}: this ${vendor} schema cannot be converted to JSON Schema ` +
        `(${(cause as Error).message}); pass the JSON Schema to publish alongside it (\`jsonSchema\`)`,
      { cause },
    );
  }
}

function vendorHint(vendor: string): string {
  switch (vendor) {
    case 'zod':
      return 'use zod 4.2 or later (it implements Standard JSON Schema)';
    case 'valibot':
      return 'wrap it with toStandardJsonSchema() from @valibot/to-json-schema';
    default:
      return 'use a schema library that implements Standard JSON Schema (https://standardschema.dev)';
  }
}

function dialectOf(json: JsonSchemaObject, use: SchemaUse): '2020' | '07' {
  const dialect = json.$schema;
  // A trailing '#' (empty fragment) names the same meta-schema.
  const uri = typeof dialect === 'string' && dialect.endsWith('#') ? dialect.slice(0, -1) : dialect;
  if (uri === undefined || uri === DRAFT_2020_12) return '2020';
  if (uri === DRAFT_07) return '07';
  throw new Error(
    `${use.field} names an unsupported $schema ${JSON.stringify(dialect)}: ` +
      `mcpwire validates JSON Schema 2020-12 (${DRAFT_2020_12}, the default) and draft-07 (${DRAFT_07}#)`,
  );
}

function assertObjectSchema(json: unknown, use: SchemaUse): asserts json is JsonSchemaObject {
  if (!isObjectLike(json) || Array.isArray(json) || typeof json === 'function') {
    throw new Error(`${use.field} must be a JSON Schema object`);
  }
  if (json.type !== 'object') {
    const got = json.type === undefined ? 'no "type"' : `"type": ${JSON.stringify(json.type)}`;
    throw new Error(
      `${use.field} must describe an object ("type": "object" at its root, as MCP requires); it has ${got}`,
    );
  }
}

function describeAjv(label: string, errors: ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) return `${label}: is invalid`;
  return joinReported(errors.map((error) => describeAjvError(label, error)));
}

function describeAjvError(label: string, error: ErrorObject): string {
  const path = formatPath(label, pointerSegments(error.instancePath));
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${formatPath(path, [params.missingProperty as string])}: is required`;
    case 'additionalProperties':
      return `${formatPath(path, [params.additionalProperty as string])}: is not allowed`;
    case 'unevaluatedProperties':
      return `${formatPath(path, [params.unevaluatedProperty as string])}: is not allowed`;
    case 'enum':
      return `${path}: must be one of ${JSON.stringify(params.allowedValues)}`;
    case 'const':
      return `${path}: must be ${JSON.stringify(params.allowedValue)}`;
    default:
      return `${path}: ${error.message ?? 'is invalid'}`;
  }
}

function describeIssues(label: string, issues: ReadonlyArray<StandardSchemaV1Issue>): string {
  if (issues.length === 0) return `${label}: is invalid`;
  return joinReported(issues.map((issue) => `${formatPath(label, issue.path ?? [])}: ${issue.message}`));
}

function joinReported(messages: string[]): string {
  if (messages.length <= MAX_REPORTED) return messages.join('; ');
  return `${messages.slice(0, MAX_REPORTED).join('; ')}; and ${messages.length - MAX_REPORTED} more`;
}

/** The segments of a JSON Pointer (RFC 6901), e.g. '/a/0/b~1c' → ['a', '0', 'b/c']. */
function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** A readable path: `arguments.items[0]["odd key"]`. */
function formatPath(root: string, segments: Iterable<PropertyKey | { readonly key: PropertyKey }>): string {
  let path = root;
  for (const segment of segments) {
    const key = typeof segment === 'object' ? segment.key : segment;
    if (typeof key === 'number' || (typeof key === 'string' && /^\d+$/.test(key))) path += `[${String(key)}]`;
    else path += typeof key === 'string' ? keyPath(key) : `[${String(key)}]`;
  }
  return path;
}

// Functions too: arktype's schemas are functions.
function isObjectLike(value: unknown): value is Record<string, unknown> {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

function isStandardSchema(value: object): value is StandardSchemaV1 {
  return '~standard' in value;
}
