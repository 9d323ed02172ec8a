import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { Params } from '../jsonrpc/types.js';
import type { DiscoverResult } from '../protocol/modern-types.js';
import {
  type CallToolRequestParams,
  type CompleteRequestParams,
  type GetPromptRequestParams,
  Method,
  type PaginatedRequestParams,
  type ResourceRequestParams,
  type Result,
  type SetLevelRequestParams,
} from '../protocol/types.js';
import { MODERN_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import { callerOf } from './access.js';
import { complete } from './completion.js';
import type { ServerContext } from './context.js';
import type { InputRequired } from './input-required.js';
import { type Page, pageOf } from './pagination.js';
import { getPrompt } from './prompts.js';
import type { Entry, Registry } from './registry.js';
import { checkSubscribable, listResources, readResource } from './resources.js';
import type { Server } from './server.js';
import { LEGACY_TASK_METHODS, MODERN_TASK_METHODS } from './tasks/task-methods.js';
import { callTool } from './tools.js';

/** Answers one request of a client: shared by every server, session and modern request. */
export type MethodHandler = (
  server: Server,
  params: Params,
  ctx: ServerContext,
) => Result | InputRequired | Promise<Result | InputRequired>;

/** A method table: method name → handler, with no prototype (a name like "constructor" finds nothing). */
export type MethodTable = Readonly<Record<string, MethodHandler | undefined>>;

/**
 * A method a protocol extension adds (`skills/list`, …), given to `Server.addMethod`: answered in both eras and
 * on every transport, after the same admission as the methods of the spec.
 */
export interface ExtensionMethod {
  /** Answers one request; throws McpError to refuse it (-32602 for params it cannot use, naming the field). */
  answer(params: Params, ctx: ServerContext): Result | Promise<Result>;
  /** Only reads: its 2026 results carry the server's caching hints (`ttlMs`, `cacheScope`), as lists do. */
  readonly cacheable: boolean;
}

const EMPTY_RESULT: Result = Object.freeze({});

/** One page of the enabled items of a registry its caller may see, as the list method of `kind` answers it. */
function listPage<E extends Entry<T>, T>(
  kind: 'tools' | 'resourceTemplates' | 'prompts',
  registry: Registry<E, T>,
  params: Params,
  pageSize: number,
  ctx: ServerContext,
): Result {
  const { entries, published } = registry.listFor(callerOf(ctx.transport));
  return listResult(
    kind,
    pageOf(kind, entries, published, (params as PaginatedRequestParams).cursor, pageSize),
  );
}

function listResult(key: string, page: Page<unknown>): Result {
  return page.nextCursor === undefined
    ? { [key]: page.items }
    : { [key]: page.items, nextCursor: page.nextCursor };
}

/** The methods of both eras. */
const SHARED = {
  [Method.ToolsList](server, params, ctx) {
    return listPage('tools', server.toolEntries, params, server.pageSize, ctx);
  },
  [Method.ToolsCall](server, params, ctx) {
    const { name, arguments: args } = params as unknown as CallToolRequestParams;
    const entry = server.toolEntries.findFor(name, callerOf(ctx.transport));
    if (entry === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    return callTool(entry, args, ctx);
  },
  [Method.ResourcesList](server, params, ctx) {
    const cursor = (params as PaginatedRequestParams).cursor;
    const page = listResources(server.resourceEntries, server.templateEntries, cursor, server.pageSize, ctx);
    return page instanceof Promise
      ? page.then((p) => listResult('resources', p))
      : listResult('resources', page);
  },
  [Method.ResourcesTemplatesList](server, params, ctx) {
    return listPage('resourceTemplates', server.templateEntries, params, server.pageSize, ctx);
  },
  [Method.ResourcesRead](server, params, ctx) {
    const { uri } = params as unknown as ResourceRequestParams;
    return readResource(server.resourceEntries, server.templateEntries, uri, ctx);
  },
  [Method.PromptsList](server, params, ctx) {
    return listPage('prompts', server.promptEntries, params, server.pageSize, ctx);
  },
  [Method.PromptsGet](server, params, ctx) {
    const { name, arguments: args } = params as unknown as GetPromptRequestParams;
    const entry = server.promptEntries.findFor(name, callerOf(ctx.transport));
    if (entry === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    return getPrompt(entry, args, ctx);
  },
  [Method.CompletionComplete](server, params, ctx) {
    const request = params as unknown as CompleteRequestParams;
    return complete(server.promptEntries, server.resourceEntries, server.templateEntries, request, ctx);
  },
} satisfies Record<string, MethodHandler>;

/** What a legacy session keeps between requests: its subscriptions. */
const LEGACY_ONLY = {
  [Method.ResourcesSubscribe](server, params, ctx) {
    const session = ctx.session!;
    const { uri } = params as unknown as ResourceRequestParams;
    checkSubscribable(server.resourceEntries, server.templateEntries, uri, callerOf(ctx.transport));
    session.subscriptions ??= new Set();
    session.subscriptions.add(uri);
    return EMPTY_RESULT;
  },
  [Method.ResourcesUnsubscribe](_server, params, ctx) {
    ctx.session!.subscriptions?.delete((params as unknown as ResourceRequestParams).uri);
    return EMPTY_RESULT;
  },
} satisfies Record<string, MethodHandler>;

const SET_LEVEL = {
  [Method.LoggingSetLevel](_server, params, ctx) {
    ctx.session!.logLevel = (params as unknown as SetLevelRequestParams).level;
    return EMPTY_RESULT;
  },
} satisfies Record<string, MethodHandler>;

/**
 * `subscriptions/listen` is answered by the transport (it is a stream, not a result); it is listed here so
 * that the one table says which methods a modern client may call.
 */
const MODERN_ONLY = {
  [Method.ServerDiscover](server): DiscoverResult {
    const result: DiscoverResult = {
      supportedVersions: MODERN_PROTOCOL_VERSIONS as string[],
      capabilities: server.modernCapabilities,
    };
    if (server.instructions !== undefined) result.instructions = server.instructions;
    return result;
  },
  [Method.SubscriptionsListen]() {
    throw new Error('subscriptions/listen is served by the transport, as a stream');
  },
} satisfies Record<string, MethodHandler>;

const table = (...parts: Readonly<Record<string, MethodHandler | undefined>>[]): MethodTable =>
  Object.freeze(Object.assign(Object.create(null), ...parts));

/** `base` with an extension's method added. */
export function withMethod(base: MethodTable, name: string, method: ExtensionMethod): MethodTable {
  return withMethods(base, { [name]: (_server, params, ctx) => method.answer(params, ctx) });
}

/** `base` with `handlers` in place of its own methods of the same names, or beside them. */
export function withMethods(
  base: MethodTable,
  handlers: Readonly<Record<string, MethodHandler>>,
): MethodTable {
  return table(base, handlers);
}

/** The methods both eras share, which a server answers from its registries: tools, resources, prompts, completion. */
export const REGISTRY_METHODS: readonly string[] = Object.keys(SHARED);

const LEGACY_METHODS: MethodTable = table(SHARED, LEGACY_ONLY, SET_LEVEL);
const LEGACY_METHODS_WITHOUT_LOGGING: MethodTable = table(SHARED, LEGACY_ONLY);
const LEGACY_METHODS_WITH_TASKS: MethodTable = table(SHARED, LEGACY_ONLY, SET_LEVEL, LEGACY_TASK_METHODS);
const LEGACY_METHODS_WITH_TASKS_ONLY: MethodTable = table(SHARED, LEGACY_ONLY, LEGACY_TASK_METHODS);

/** The legacy table of a server that declares logging or not, and runs tasks (2025-11-25's tasks/*) or not. */
export function legacyMethods(logging: boolean, tasks: boolean): MethodTable {
  if (tasks) return logging ? LEGACY_METHODS_WITH_TASKS : LEGACY_METHODS_WITH_TASKS_ONLY;
  return logging ? LEGACY_METHODS : LEGACY_METHODS_WITHOUT_LOGGING;
}
/**
 * The modern table: initialize, ping, logging/setLevel and resources/(un)subscribe are gone in 2026-07-28; the
 * Tasks extension's methods are found only on a server that runs tasks (see `admitModern`).
 */
export const MODERN_METHODS: MethodTable = table(SHARED, MODERN_ONLY, MODERN_TASK_METHODS);
