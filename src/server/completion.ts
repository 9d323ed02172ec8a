import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import { isStringArray } from '../protocol/param-checks.js';
import type {
  CompleteRequestParams,
  CompleteResult,
  Prompt,
  Resource,
  ResourceTemplate,
} from '../protocol/types.js';
import { callerOf } from './access.js';
import type { ServerContext } from './context.js';
import type { PromptEntry } from './prompts.js';
import type { Registry } from './registry.js';
import type { ResourceEntry, TemplateEntry } from './resources.js';

/**
 * Suggests values for one prompt argument or template variable from what the user typed so far.
 * `context.arguments` holds the values of the other arguments already resolved. Values are
 * ranked by relevance; past 100, the client gets the first 100 and `hasMore`.
 */
export type Completer<N extends string = string> = (
  value: string,
  context: { arguments: CompletionArguments<N> },
  ctx: ServerContext,
) => string[] | Promise<string[]>;

/** The other arguments resolved so far: by the prompt's argument names when they are known, else any. */
export type CompletionArguments<N extends string> = string extends N
  ? Record<string, string>
  : { [K in N]?: string };

/** The spec's cap on values in one completion result. */
const MAX_VALUES = 100;

const NO_COMPLETION: CompleteResult = Object.freeze({
  completion: Object.freeze({ values: [], total: 0, hasMore: false }),
}) as CompleteResult;

const NO_ARGUMENTS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * Answers completion/complete: a prompt argument's completer for `ref/prompt`, a template
 * variable's for `ref/resource`. No completer means no suggestions; an unknown prompt or template
 * (or one hidden from the caller) is -32602.
 */
export async function complete(
  prompts: Registry<PromptEntry, Prompt>,
  resources: Registry<ResourceEntry, Resource>,
  templates: Registry<TemplateEntry, ResourceTemplate>,
  params: CompleteRequestParams,
  ctx: ServerContext,
): Promise<CompleteResult> {
  const { ref, argument } = params;
  const caller = callerOf(ctx.transport);
  let completer: Completer | undefined;
  if (ref.type === 'ref/prompt') {
    const prompt = prompts.findFor(ref.name, caller);
    if (prompt === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
    completer = prompt.completers?.[argument.name];
  } else {
    const template = templates.findFor(ref.uri, caller);
    // A reference may also name a plain resource URI, which has nothing to complete.
    if (template === undefined && resources.findFor(ref.uri, caller) === undefined) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown resource template: ${ref.uri}`);
    }
    completer = template?.completers?.[argument.name];
  }
  if (completer === undefined) return NO_COMPLETION;
  const values = await completer(
    argument.value,
    { arguments: params.context?.arguments ?? NO_ARGUMENTS },
    ctx,
  );
  if (!isStringArray(values))
    throw new Error(`The completer of "${argument.name}" returned no array of strings`);
  const total = values.length;
  return {
    completion: {
      values: total > MAX_VALUES ? values.slice(0, MAX_VALUES) : values,
      total,
      hasMore: total > MAX_VALUES,
    },
  };
}
