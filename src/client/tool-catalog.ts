import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import { RequestCancelledError } from '../peer/errors.js';
import type { RequestOptions } from '../peer/peer-options.js';
import type { TaskSupport } from '../protocol/tasks.js';
import {
  type CallToolResult,
  type ListToolsResult,
  Method,
  type ObjectSchema,
  type Tool,
} from '../protocol/types.js';
import { type CompiledSchema, compileSchema } from '../server/schema.js';

/** What the catalog knows of one listed tool: its output schema (compiled on first call) and its hints. */
interface Known {
  readonly output: ObjectSchema | undefined;
  /** undefined until the first call; null when the schema could not be compiled (reported). */
  compiled?: CompiledSchema | null;
  /** `readOnlyHint` or `idempotentHint`: a call whose answer was lost may be sent again. */
  readonly repeatable: boolean;
  /** `execution.taskSupport` (2025-11-25): whether a legacy call may, must or must not ask for a task. */
  readonly taskSupport: TaskSupport | undefined;
}

/**
 * What a client session knows of the server's tools from `tools/list`: each tool's output schema, which
 * `callTool` checks results against, and whether the tool says calling it twice is harmless. A
 * `list_changed` (`forget`) drops it all; a listing begun before it records nothing.
 */
export class ToolCatalog {
  private readonly known = new Map<string, Known>();
  /** True once a whole tool list has been read since the last forget. */
  private listed = false;
  private generation = 0;
  /** The listing `learn` started; shared by concurrent callers. */
  private listing: Promise<void> | undefined;

  constructor(
    private readonly listAll: (options: RequestOptions) => AsyncIterable<Tool>,
    private readonly report: (err: Error) => void,
  ) {}

  /** Marks the start of a listing: `record` and `complete` count only if nothing was forgotten since. */
  begin(): number {
    return this.generation;
  }

  /** Records one page of a listing that began at `generation`. */
  record(generation: number, result: ListToolsResult, firstPage: boolean): void {
    if (generation !== this.generation || !Array.isArray(result.tools)) return;
    for (const tool of result.tools) this.known.set(tool.name, this.entry(tool));
    if (firstPage && result.nextCursor === undefined) this.listed = true;
  }

  /** A listing that began at `generation` read every page. */
  complete(generation: number): void {
    if (generation === this.generation) this.listed = true;
  }

  forget(): void {
    this.known.clear();
    this.listed = false;
    this.generation++;
  }

  /** Forgets, then reads the whole list again (after the server refused headers built from a stale one). */
  async refresh(options: RequestOptions | undefined): Promise<void> {
    this.forget();
    await this.learn(options);
  }

  /**
   * The tool's entry, reading the whole list first when it is not known and no list was read yet. The caller's
   * signal ends its wait for the list (RequestCancelledError, for the call it was read for), not the listing.
   */
  async lookup(name: string, options: RequestOptions | undefined): Promise<Known | undefined> {
    // A list change heard while listing voids that listing (a server may add tools as the session starts, as
    // server-everything does): list again, a few times at most.
    for (let tries = 0; tries < 3 && !this.known.has(name) && !this.listed; tries++)
      await untilAborted(this.learn(options), options?.signal);
    return this.known.get(name);
  }

  /** True when the listed tool says a repeated call is harmless (`readOnlyHint` or `idempotentHint`). */
  repeatable(name: string): boolean {
    return this.known.get(name)?.repeatable === true;
  }

  /**
   * When the tool has an outputSchema and the result is not an error, the result must carry
   * `structuredContent` that conforms to it; otherwise rejects with an McpError naming the offending
   * field, the result in its `data`.
   */
  async check(name: string, known: Known, result: CallToolResult): Promise<void> {
    if (known.output === undefined || result.isError === true) return;
    if (known.compiled === undefined) {
      try {
        known.compiled = compileSchema(known.output, 'output');
      } catch (err) {
        // A schema this library cannot compile must not make the tool unusable; say so once.
        known.compiled = null;
        this.report(new Error(`Tool "${name}": its outputSchema is not checked: ${(err as Error).message}`));
      }
    }
    if (known.compiled === null) return;
    const structured = result.structuredContent;
    if (structured == null) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Tool "${name}" declares an outputSchema but its result has no structuredContent`,
        { tool: name, result },
      );
    }
    let outcome = known.compiled.validate(structured);
    if (outcome instanceof Promise) outcome = await outcome;
    if (!outcome.ok) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Tool "${name}" returned structuredContent that does not match its outputSchema: ${outcome.message}`,
        { tool: name, result },
      );
    }
  }

  /** Reads the whole tool list once; concurrent callers share the listing. */
  private learn(options: RequestOptions | undefined): Promise<void> {
    // Without the caller's signal: the listing may be shared with callers that did not abort.
    this.listing ??= (async () => {
      try {
        for await (const _ of this.listAll({ timeoutMs: options?.timeoutMs })) {
          // Consumed for its side effect: each page is recorded.
        }
      } finally {
        this.listing = undefined;
      }
    })();
    return this.listing;
  }

  /**
   * The entry of a listed tool. A schema equal to the one already compiled keeps its validator, so a client
   * that lists tools before every call does not recompile each time.
   */
  private entry(tool: Tool): Known {
    const output = tool.outputSchema;
    const hints = tool.annotations;
    const repeatable = hints?.readOnlyHint === true || hints?.idempotentHint === true;
    const taskSupport = tool.execution?.taskSupport;
    const previous = this.known.get(tool.name);
    if (
      previous?.compiled != null &&
      output !== undefined &&
      previous.repeatable === repeatable &&
      previous.taskSupport === taskSupport &&
      JSON.stringify(previous.output) === JSON.stringify(output)
    ) {
      return previous;
    }
    return { output, repeatable, taskSupport };
  }
}

/** `listing`, unless `signal` aborts first: then a rejection, while the listing goes on for those it is shared with. */
function untilAborted(listing: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return listing;
  const cancelled = () => new RequestCancelledError(Method.ToolsCall, signal.reason);
  if (signal.aborted) return Promise.reject(cancelled());
  return new Promise<void>((resolve, reject) => {
    const onabort = () => reject(cancelled());
    signal.addEventListener('abort', onabort, { once: true });
    listing.then(resolve, reject).finally(() => signal.removeEventListener('abort', onabort));
  });
}
