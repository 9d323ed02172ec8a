import { McpError } from '../jsonrpc/errors.js';
import { jsonProblem } from '../jsonrpc/json-fidelity.js';
import { CapabilityError, RequestTimeoutError } from '../peer/errors.js';
import { type HeaderAnnotation, headerAnnotations } from '../protocol/header-annotations.js';
import {
  type CallToolResult,
  type ContentBlock,
  type Icon,
  type JsonObject,
  type Meta,
  Method,
  type ObjectSchema,
  type Tool,
  type ToolAnnotations,
  type ToolExecution,
} from '../protocol/types.js';
import { type Access, checkAccess } from './access.js';
import type { ServerContext } from './context.js';
import { fits } from './handler-result.js';
import { InputRequired } from './input-required.js';
import type { Entry } from './registry.js';
import {
  type CompiledSchema,
  compileSchema,
  EMPTY_OBJECT_SCHEMA,
  type SchemaInput,
  type StandardSchemaV1,
  type ValidationOutcome,
} from './schema.js';

/** A tool as the server author describes it: the fields of tools/list, with schemas in either form. */
export interface ToolDef<S extends SchemaInput | undefined = SchemaInput | undefined> {
  /** Unique among the server's tools. */
  name: string;
  title?: string;
  description?: string;
  /**
   * The arguments: a JSON Schema object (published as given) or a Standard Schema such as a zod
   * object (published as its JSON Schema, and its parsed output is what the handler gets).
   * Omitted: any object is accepted and `{ type: 'object' }` is published.
   */
  inputSchema?: S;
  /** When given, every successful result must carry `structuredContent` that conforms to it. */
  outputSchema?: SchemaInput;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  /**
   * How it runs: `taskSupport` `'optional'` or `'required'` lets it run as a task (see `ServerOptions.tasks`);
   * default `'forbidden'`.
   */
  execution?: ToolExecution;
  /**
   * The handler decides when the task starts, by awaiting `ctx.startTask()`: before that the call is a plain
   * request, which may gather input through multi-round-trip requests (a task cannot: SEP-2663 resolves them
   * before the task is created). Default false: a call that runs as a task is one before the handler starts.
   */
  deferTask?: boolean;
  /**
   * Who may see and use it (OAuth scopes, a rule on the caller); a caller it does not admit finds it absent.
   * Default: every caller.
   */
  access?: Access;
  _meta?: Meta;
}

/** The arguments a handler receives: the schema's output type for a Standard Schema, else an object. */
export type ToolArgs<S> = S extends StandardSchemaV1
  ? NonNullable<S['~standard']['types']>['output']
  : Record<string, unknown>;

/**
 * What a tool handler returns: a CallToolResult whose `content` may be left out when it returns
 * `structuredContent` (the server then adds the JSON text block the spec asks for).
 */
export type ToolResult = Omit<CallToolResult, 'content'> & { content?: ContentBlock[] };

/**
 * Runs one tool call with validated arguments. A thrown McpError becomes the JSON-RPC error of
 * the call (e.g. -32042 when a URL elicitation must happen first). Any other thrown error becomes
 * a result with `isError: true` and the error's message, which the model can read and act on;
 * so do a CapabilityError or RequestTimeoutError of a call the handler made to the client (the
 * tool failed; the request was fine).
 */
export type ToolHandler<S = SchemaInput | undefined> = (
  args: ToolArgs<S>,
  ctx: ServerContext,
) => ToolResult | InputRequired | Promise<ToolResult | InputRequired>;

/** What answering tools/call gives: the checked result, or the handler's `inputRequired` as it is. */
type CallOutcome = CallToolResult | InputRequired | Promise<CallToolResult | InputRequired>;

/** The fields a tool's `update` may change, including its handler. */
export type ToolUpdate = Partial<ToolDef> & { handler?: ToolHandler<any> };

/** A registered tool: its published form and compiled schemas, shared by every session. */
export interface ToolEntry extends Entry<Tool> {
  readonly def: ToolDef;
  readonly handler: ToolHandler<any>;
  readonly input: CompiledSchema | undefined;
  readonly output: CompiledSchema | undefined;
  /** The arguments a modern client mirrors into `Mcp-Param-*` headers (`x-mcp-header`); undefined: none. */
  readonly headers: readonly HeaderAnnotation[] | undefined;
}

/** Compiles a tool's schemas and builds its published object; throws on an invalid definition. */
export function buildTool(def: ToolDef, handler: ToolHandler<any>, seq: number): ToolEntry {
  if (typeof def?.name !== 'string' || def.name === '') throw new Error('A tool needs a non-empty "name"');
  if (typeof handler !== 'function') throw new Error(`Tool "${def.name}" needs a handler function`);
  const input = def.inputSchema === undefined ? undefined : compileSchema(def.inputSchema, 'input');
  const output = def.outputSchema === undefined ? undefined : compileSchema(def.outputSchema, 'output');
  const published: Tool = {
    name: def.name,
    inputSchema: (input?.json ?? EMPTY_OBJECT_SCHEMA) as ObjectSchema,
  };
  if (def.title !== undefined) published.title = def.title;
  if (def.description !== undefined) published.description = def.description;
  if (output !== undefined) published.outputSchema = output.json as ObjectSchema;
  if (def.annotations !== undefined) published.annotations = def.annotations;
  if (def.execution !== undefined) published.execution = def.execution;
  if (def.icons !== undefined) published.icons = def.icons;
  if (def._meta !== undefined) published._meta = def._meta;
  const headers = annotationsOf(def.name, published.inputSchema);
  const access = checkAccess(def.access, `Tool "${def.name}"`);
  return { key: def.name, seq, published, access, enabled: true, def, handler, input, output, headers };
}

/** The tool's `x-mcp-header` annotations, checked here so that a tool no client could call is never listed. */
function annotationsOf(name: string, schema: unknown): readonly HeaderAnnotation[] | undefined {
  try {
    const found = headerAnnotations(schema);
    return found.length === 0 ? undefined : found;
  } catch (err) {
    throw new Error(`Tool "${name}": ${(err as Error).message}`);
  }
}

export function rebuildTool(current: ToolEntry, changes: ToolUpdate): ToolEntry {
  const { handler, ...fields } = changes;
  return buildTool({ ...current.def, ...fields }, handler ?? current.handler, current.seq);
}

/** Answers tools/call for `entry`: validates the arguments, runs the handler, checks its result. */
export function callTool(entry: ToolEntry, args: JsonObject | undefined, ctx: ServerContext): CallOutcome {
  const input = entry.input;
  if (input === undefined) return run(entry, args ?? {}, ctx);
  const outcome = input.validate(args);
  return outcome instanceof Promise
    ? outcome.then((o) => runValidated(entry, o, ctx))
    : runValidated(entry, outcome, ctx);
}

function runValidated(entry: ToolEntry, outcome: ValidationOutcome, ctx: ServerContext): CallOutcome {
  // Spec (tools, error handling): invalid input is a tool execution error the model can correct.
  if (!outcome.ok) return errorResult(`Invalid arguments for tool "${entry.key}": ${outcome.message}`);
  return run(entry, outcome.value, ctx);
}

function run(entry: ToolEntry, args: unknown, ctx: ServerContext): CallOutcome {
  let result: ReturnType<ToolHandler>;
  try {
    result = entry.handler(args as never, ctx);
  } catch (err) {
    return failed(err);
  }
  return isPromiseLike(result)
    ? Promise.resolve(result).then((r) => finish(entry, r), failed)
    : finish(entry, result);
}

function failed(err: unknown): CallToolResult {
  if (err instanceof McpError && !(err instanceof CapabilityError || err instanceof RequestTimeoutError))
    throw err;
  return errorResult(err instanceof Error ? err.message : String(err));
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * Checks a handler's result: structuredContent JSON would change (NaN, Infinity, a BigInt…) is a tool error
 * naming the field; one breaking the output schema is a -32603 for the server's author.
 */
function finish(entry: ToolEntry, result: ToolResult | InputRequired): CallOutcome {
  if (result instanceof InputRequired) return result;
  if (typeof result !== 'object' || result === null) {
    throw new Error(
      `Tool "${entry.key}" returned ${result === null ? 'null' : typeof result}, not a result object`,
    );
  }
  const structured = result.structuredContent;
  // Before the schema, which judged the value JSON.stringify was given, not the text the client gets.
  const unsendable = structured === undefined ? undefined : jsonProblem(structured);
  if (unsendable !== undefined) {
    return errorResult(
      `Tool "${entry.key}" returned structuredContent that JSON cannot carry: structuredContent${unsendable}`,
    );
  }
  const output = entry.output;
  if (output === undefined || result.isError === true) return withContent(entry, result);
  if (structured === undefined) {
    throw new Error(`Tool "${entry.key}" declares an outputSchema but returned no structuredContent`);
  }
  const outcome = output.validate(structured);
  return outcome instanceof Promise
    ? outcome.then((o) => conforming(entry, result, o))
    : conforming(entry, result, outcome);
}

// Thrown as plain Errors: the client gets -32603 with the message, and the server's onerror hears of it.
function conforming(entry: ToolEntry, result: ToolResult, outcome: ValidationOutcome): CallToolResult {
  if (!outcome.ok) {
    throw new Error(
      `Tool "${entry.key}" returned structuredContent that does not match its outputSchema: ${outcome.message}`,
    );
  }
  return withContent(entry, result);
}

/**
 * Spec (tools, structured content): a structured result also carries its JSON as text, for older clients. The
 * result is then checked as a client checks it (`fits`).
 */
function withContent(entry: ToolEntry, result: ToolResult): CallToolResult {
  const structured = result.structuredContent;
  const whole: CallToolResult =
    result.content !== undefined
      ? (result as CallToolResult)
      : {
          ...result,
          content: structured === undefined ? [] : [{ type: 'text', text: JSON.stringify(structured) }],
        };
  return fits(Method.ToolsCall, `Tool "${entry.key}"`, whole);
}

// Thenables too, not only native promises: a handler may return any awaitable.
function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | null)?.then === 'function';
}
