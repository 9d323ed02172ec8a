import type { PromptArgument } from '../protocol/types.js';
import type { Completer } from './completion.js';
import type { StandardSchemaV1 } from './schema.js';

/** A prompt argument as declared; `complete` offers values for completion/complete. */
export interface PromptArgumentDef extends PromptArgument {
  complete?: Completer;
}

/**
 * The arguments a prompt lists. Given inline to `server.prompt` (or declared `as const`), their names and
 * `required` flags type the handler's arguments: a required one is a string, any other may be undefined.
 */
export type PromptArgumentList = readonly PromptArgumentDef[];

type SchemaTypes<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>;

/** The names of a prompt's arguments: the keys of its schema's input, else the names it lists. */
export type PromptArgName<L extends PromptArgumentList, S> = [S] extends [StandardSchemaV1]
  ? Extract<keyof SchemaTypes<S>['input'], string>
  : L[number]['name'];

type RequiredNames<L extends PromptArgumentList> = Extract<L[number], { readonly required: true }>['name'];
type OptionalNames<L extends PromptArgumentList> = Exclude<L[number]['name'], RequiredNames<L>>;

/**
 * The arguments a prompt's handler gets: its schema's output when it has one; else its listed arguments by name
 * (a plain record of strings when the names are not known to the type checker).
 */
export type PromptArgs<L extends PromptArgumentList, S> = [S] extends [StandardSchemaV1]
  ? SchemaTypes<S>['output']
  : string extends L[number]['name']
    ? Record<string, string>
    : { [N in RequiredNames<L>]: string } & { [N in OptionalNames<L>]?: string };

/** Completers by argument name, each told the other arguments chosen so far by the same names. */
export type PromptCompleters<N extends string> = { [K in N]?: Completer<N> };
