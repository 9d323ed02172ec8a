import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { GetPromptResult, Icon, Meta, Prompt, PromptArgument } from '../protocol/types.js';
import type { Completer } from './completion.js';
import type { ServerContext } from './context.js';
import type { InputRequired } from './input-required.js';
import type { Entry } from './registry.js';

/** A prompt argument as declared; `complete` offers values for completion/complete. */
export interface PromptArgumentDef extends PromptArgument {
  complete?: Completer;
}

/** A prompt as the server author describes it: the fields of prompts/list, plus completers. */
export interface PromptDef {
  /** Unique among the server's prompts. */
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgumentDef[];
  icons?: Icon[];
  _meta?: Meta;
  /** Completers by argument name: an alternative to `complete` on each argument. */
  complete?: { [argument: string]: Completer };
}

/** Builds a prompt's messages (or asks the client first: `inputRequired`); required arguments are present. */
export type GetPrompt = (
  args: Record<string, string>,
  ctx: ServerContext,
) => GetPromptResult | InputRequired | Promise<GetPromptResult | InputRequired>;

/** The fields a prompt's `update` may change, including its `get`. */
export type PromptUpdate = Partial<PromptDef> & { get?: GetPrompt };

export interface PromptEntry extends Entry<Prompt> {
  readonly def: PromptDef;
  readonly get: GetPrompt;
  /** Names of the required arguments. */
  readonly required: readonly string[];
  /** Completers by argument name; undefined when there are none. */
  readonly completers: Readonly<Record<string, Completer>> | undefined;
}

export function buildPrompt(def: PromptDef, get: GetPrompt, seq: number): PromptEntry {
  if (typeof def?.name !== 'string' || def.name === '') throw new Error('A prompt needs a non-empty "name"');
  if (typeof get !== 'function') throw new Error(`Prompt "${def.name}" needs a get function`);
  const published: Prompt = { name: def.name };
  if (def.title !== undefined) published.title = def.title;
  if (def.description !== undefined) published.description = def.description;
  const required: string[] = [];
  let completers: Record<string, Completer> | undefined;
  if (def.arguments !== undefined) {
    const args: PromptArgument[] = [];
    for (const { complete, ...arg } of def.arguments) {
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
  for (const [name, complete] of Object.entries(def.complete ?? {})) {
    if (!def.arguments?.some((a) => a.name === name)) {
      throw new Error(
        `Prompt "${def.name}" has a completer for "${name}", which is not one of its arguments`,
      );
    }
    completers ??= Object.create(null) as Record<string, Completer>;
    completers[name] = complete;
  }
  if (def.icons !== undefined) published.icons = def.icons;
  if (def._meta !== undefined) published._meta = def._meta;
  return { key: def.name, seq, published, enabled: true, def, get, required, completers };
}

export function rebuildPrompt(current: PromptEntry, changes: PromptUpdate): PromptEntry {
  const { get, ...fields } = changes;
  return buildPrompt({ ...current.def, ...fields }, get ?? current.get, current.seq);
}

/** Answers prompts/get: -32602 naming the first missing required argument, else the prompt's messages. */
export function getPrompt(
  entry: PromptEntry,
  args: Record<string, string> | undefined,
  ctx: ServerContext,
): ReturnType<GetPrompt> {
  for (const name of entry.required) {
    if (typeof args?.[name] !== 'string') {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Missing required argument "${name}" for prompt "${entry.key}"`,
      );
    }
  }
  return entry.get(args ?? {}, ctx);
}
