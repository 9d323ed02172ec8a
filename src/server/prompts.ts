import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import {
  type GetPromptResult,
  type Icon,
  type Meta,
  Method,
  type Prompt,
  type PromptArgument,
} from '../protocol/types.js';
import { type Access, checkAccess } from './access.js';
import type { Completer } from './completion.js';
import type { ServerContext } from './context.js';
import { fitting } from './handler-result.js';
import type { InputRequired } from './input-required.js';
import type {
  PromptArgName,
  PromptArgumentDef,
  PromptArgumentList,
  PromptCompleters,
} from './prompt-args.js';
import type { Entry } from './registry.js';
import {
  type CompiledSchema,
  compilePromptArguments,
  type StandardSchemaV1,
  type ValidationOutcome,
} from './schema.js';

/**
 * A prompt as the server author describes it: the fields of prompts/list, plus completers. Its arguments are
 * either listed (`arguments`) or given as a Standard Schema of the arguments object (`argsSchema`: a zod,
 * valibot or arktype object of strings), which publishes them from its JSON Schema, validates each call, and
 * hands the handler its output.
 */
export interface PromptDef<
  L extends PromptArgumentList = PromptArgumentList,
  S extends StandardSchemaV1 | undefined = StandardSchemaV1 | undefined,
> {
  /** Unique among the server's prompts. */
  name: string;
  title?: string;
  description?: string;
  arguments?: L;
  argsSchema?: S;
  icons?: Icon[];
  /**
   * Who may see and use it (OAuth scopes, a rule on the caller); a caller it does not admit finds it absent.
   * Default: every caller.
   */
  access?: Access;
  _meta?: Meta;
  /** Completers by argument name: an alternative to `complete` on each argument. */
  complete?: PromptCompleters<PromptArgName<L, S>>;
}

/**
 * Builds a prompt's messages (or asks the client first: `inputRequired`) from its arguments, which were checked:
 * the required ones are present, and a schema's arguments are its output.
 */
export type GetPrompt<A = Record<string, string>> = (
  args: A,
  ctx: ServerContext,
) => GetPromptResult | InputRequired | Promise<GetPromptResult | InputRequired>;

/** The fields a prompt's `update` may change, including its `get`. */
export type PromptUpdate = Partial<PromptDef> & { get?: GetPrompt<any> };

export interface PromptEntry extends Entry<Prompt> {
  readonly def: PromptDef;
  readonly get: GetPrompt<any>;
  /** Names of the required arguments of a listed prompt (a schema checks its own). */
  readonly required: readonly string[];
  /** The compiled `argsSchema`, when the prompt has one. */
  readonly schema: CompiledSchema | undefined;
  /** Completers by argument name; undefined when there are none. */
  readonly completers: Readonly<Record<string, Completer>> | undefined;
}

export function buildPrompt(def: PromptDef, get: GetPrompt<any>, seq: number): PromptEntry {
  if (typeof def?.name !== 'string' || def.name === '') throw new Error('A prompt needs a non-empty "name"');
  if (typeof get !== 'function') throw new Error(`Prompt "${def.name}" needs a get function`);
  if (def.arguments !== undefined && def.argsSchema !== undefined) {
    throw new Error(`Prompt "${def.name}" gives both "arguments" and "argsSchema": give one`);
  }
  const published: Prompt = { name: def.name };
  if (def.title !== undefined) published.title = def.title;
  if (def.description !== undefined) published.description = def.description;
  const required: string[] = [];
  let completers: Record<string, Completer> | undefined;
  let schema: CompiledSchema | undefined;
  if (def.argsSchema !== undefined) {
    try {
      schema = compilePromptArguments(def.argsSchema);
    } catch (err) {
      throw new Error(`Prompt "${def.name}": ${(err as Error).message}`, { cause: err });
    }
    published.arguments = argumentsOf(schema.json);
  } else if (def.arguments !== undefined) {
    const args: PromptArgument[] = [];
    for (const { complete, ...arg } of def.arguments as readonly PromptArgumentDef[]) {
      if (args.some((a) => a.name === arg.name)) {
        throw new Error(`Prompt "${def.name}" declares argument "${arg.name}" twice`);
      }
      args.push(arg);
      if (arg.required === true) required.push(arg.name);
      if (complete !== undefined) {
        completers ??= Object.create(null) as Record<string, Completer>;
        completers[arg.name] = complete;
      }
    }
    published.arguments = args;
  }
  for (const [name, complete] of Object.entries(def.complete ?? {}) as [string, Completer][]) {
    if (!published.arguments?.some((a) => a.name === name)) {
      throw new Error(
        `Prompt "${def.name}" has a completer for "${name}", which is not one of its arguments`,
      );
    }
    completers ??= Object.create(null) as Record<string, Completer>;
    completers[name] = complete;
  }
  if (def.icons !== undefined) published.icons = def.icons;
  if (def._meta !== undefined) published._meta = def._meta;
  const access = checkAccess(def.access, `Prompt "${def.name}"`);
  return { key: def.name, seq, published, access, enabled: true, def, get, required, schema, completers };
}

/** The arguments a schema's JSON Schema describes: its properties, with their titles and descriptions. */
function argumentsOf(json: Record<string, unknown>): PromptArgument[] {
  const properties = (json.properties ?? {}) as Record<string, { title?: unknown; description?: unknown }>;
  const required = Array.isArray(json.required) ? json.required : [];
  return Object.entries(properties).map(([name, property]) => {
    const arg: PromptArgument = { name };
    if (typeof property?.title === 'string') arg.title = property.title;
    if (typeof property?.description === 'string') arg.description = property.description;
    arg.required = required.includes(name);
    return arg;
  });
}

export function rebuildPrompt(current: PromptEntry, changes: PromptUpdate): PromptEntry {
  const { get, ...fields } = changes;
  return buildPrompt({ ...current.def, ...fields }, get ?? current.get, current.seq);
}

/**
 * Answers prompts/get: -32602 naming the first missing required argument of a listed prompt, or every problem a
 * prompt's schema finds; else the prompt's messages.
 */
export function getPrompt(
  entry: PromptEntry,
  args: Record<string, string> | undefined,
  ctx: ServerContext,
): ReturnType<GetPrompt> {
  const schema = entry.schema;
  if (schema !== undefined) {
    const outcome = schema.validate(args ?? {});
    return outcome instanceof Promise
      ? outcome.then((checked) => getChecked(entry, checked, ctx))
      : getChecked(entry, outcome, ctx);
  }
  for (const name of entry.required) {
    if (typeof args?.[name] !== 'string') {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Missing required argument "${name}" for prompt "${entry.key}"`,
      );
    }
  }
  return answered(entry, args ?? {}, ctx);
}

function getChecked(
  entry: PromptEntry,
  outcome: ValidationOutcome,
  ctx: ServerContext,
): ReturnType<GetPrompt> {
  if (!outcome.ok) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Invalid arguments for prompt "${entry.key}": ${outcome.message}`,
    );
  }
  return answered(entry, outcome.value, ctx);
}

/** The prompt's messages, as its handler gives them and a client will check them. */
function answered(entry: PromptEntry, args: unknown, ctx: ServerContext): ReturnType<GetPrompt> {
  return fitting(Method.PromptsGet, `Prompt "${entry.key}"`, entry.get(args, ctx));
}
