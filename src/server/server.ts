import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest, Params } from '../jsonrpc/types.js';
import {
  type CallToolRequestParams,
  type CompleteRequestParams,
  type GetPromptRequestParams,
  type Implementation,
  type LoggingLevel,
  Method,
  type PaginatedRequestParams,
  type Prompt,
  type Resource,
  type ResourceRequestParams,
  type ResourceTemplate,
  type Result,
  type ServerCapabilities,
  type SetLevelRequestParams,
  type Tool,
} from '../protocol/types.js';
import type { Connection } from '../session/connection.js';
import type { SessionOptions } from '../session/session.js';
import { complete } from './completion.js';
import type { ServerContext } from './context.js';
import { type Page, pageOf } from './pagination.js';
import {
  buildPrompt,
  type GetPrompt,
  getPrompt,
  type PromptDef,
  type PromptEntry,
  type PromptUpdate,
  rebuildPrompt,
} from './prompts.js';
import { type Entry, type Handle, Registry, RegistryHandle } from './registry.js';
import {
  buildResource,
  buildTemplate,
  listResources,
  type ReadResource,
  type ResourceDef,
  type ResourceEntry,
  type ResourceTemplateCallbacks,
  type ResourceTemplateDef,
  type ResourceTemplateUpdate,
  type ResourceUpdate,
  readResource,
  rebuildResource,
  rebuildTemplate,
  type TemplateEntry,
} from './resources.js';
import type { SchemaInput } from './schema.js';
import { type PreinitializedState, ServerSession } from './server-session.js';
import {
  buildTool,
  callTool,
  rebuildTool,
  type ToolDef,
  type ToolEntry,
  type ToolHandler,
  type ToolUpdate,
} from './tools.js';

/** How a server behaves; shared by every session it serves. */
export interface ServerOptions extends SessionOptions {
  /** Told to clients at initialize: how to use this server (e.g. for a system prompt). */
  instructions?: string;
  /** Items per page of tools/list, resources/list, resources/templates/list and prompts/list. Default 100. */
  pageSize?: number;
  /** Declares the `logging` capability and lets sessions send log messages. Default true. */
  logging?: boolean;
  /**
   * Capabilities declared on top of those derived from what is registered, e.g. `experimental`,
   * or `tools: { listChanged: true }` for a server that registers its first tool only later.
   */
  capabilities?: ServerCapabilities;
}

/** How `Server.connect` sets up one session. */
export interface ServerConnectOptions {
  /**
   * Starts the session as if initialize had run with these values: for transports that serve
   * each request on a fresh session (stateless HTTP) after an earlier initialize.
   */
  preinitialized?: PreinitializedState;
}

export type ToolHandle = Handle<ToolUpdate>;
export type ResourceHandle = Handle<ResourceUpdate>;
export type ResourceTemplateHandle = Handle<ResourceTemplateUpdate>;
export type PromptHandle = Handle<PromptUpdate>;

type RequestHandler = (
  server: Server,
  session: ServerSession,
  params: Params,
  ctx: ServerContext,
) => Result | Promise<Result>;

// List kinds as bits, so that the changes of one tick make one notification per kind.
const TOOLS = 1;
const RESOURCES = 2;
const PROMPTS = 4;

// Sent to every session that was announced the list: one object each, serialized once (`serialize`).
const changed = (method: string): JsonRpcNotification => Object.freeze({ jsonrpc: '2.0', method });
const TOOLS_CHANGED = changed(Method.ToolListChanged);
const RESOURCES_CHANGED = changed(Method.ResourceListChanged);
const PROMPTS_CHANGED = changed(Method.PromptListChanged);

const DEFAULT_PAGE_SIZE = 100;
const NO_PARAMS: Params = Object.freeze({});
const EMPTY_RESULT: Result = Object.freeze({});

/** Sessions of a server that several processes serve (see `Server.shared`). */
export interface SharedSessions {
  /** Notifies each shared session subscribed to `uri` once, in whichever process serves it; never throws. */
  resourceUpdated(uri: string): void;
  /** True when `session` is one of them: `resourceUpdated` leaves it to this. */
  has(session: ServerSession): boolean;
}

/**
 * An MCP server's definition: its identity, options, and the tools, resources, resource templates
 * and prompts it offers. One Server serves any number of clients, each through its own
 * ServerSession (`connect`); what is registered here (with compiled schemas and the published
 * list objects) is shared by all of them, and every change reaches each initialized session as
 * one `notifications/<kind>/list_changed` per kind and tick.
 *
 * Capabilities follow what is registered: `tools`, `resources` (with `subscribe`), `prompts`
 * (each with `listChanged`) once one of that kind is; `completions` once a prompt argument or
 * template variable has a completer; `logging` unless disabled.
 */
export class Server {
  readonly options: ServerOptions;
  readonly instructions: string | undefined;
  readonly pageSize: number;
  /** Whether the server declares `logging` (and answers logging/setLevel). */
  readonly logging: boolean;
  /** The connected sessions; a session leaves when its connection closes. */
  readonly sessions = new Set<ServerSession>();
  /** Called with each new session before it reads its first message, e.g. to set `oninitialized`. */
  onsession: ((session: ServerSession) => void) | undefined;
  /**
   * Set by what shares this server's sessions with other processes (a `RedisCluster`, through the handler it
   * serves): `resourceUpdated` hands it the sessions it shares.
   */
  shared: SharedSessions | undefined;

  /** @internal */ readonly toolEntries = new Registry<ToolEntry, Tool>('Tool', () => this.changed(TOOLS));
  /** @internal */ readonly resourceEntries = new Registry<ResourceEntry, Resource>('Resource', () =>
    this.changed(RESOURCES),
  );
  /** @internal */ readonly templateEntries = new Registry<TemplateEntry, ResourceTemplate>(
    'Resource template',
    () => this.changed(RESOURCES),
  );
  /** @internal */ readonly promptEntries = new Registry<PromptEntry, Prompt>('Prompt', () =>
    this.changed(PROMPTS),
  );

  private readonly handlers: Readonly<Record<string, RequestHandler | undefined>>;
  private capabilitiesCache: ServerCapabilities | undefined;
  /** Registration order across all kinds; starts at 1 so that a cursor's 0 precedes everything. */
  private nextSeq = 1;
  private pendingChanges = 0;

  /** `info` is sent to clients as `serverInfo`: name and version, and optionally title, icons, websiteUrl, description. */
  constructor(
    readonly info: Implementation,
    options: ServerOptions = {},
  ) {
    if (typeof info?.name !== 'string' || typeof info.version !== 'string') {
      throw new Error('Server info needs a string "name" and "version"');
    }
    const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(pageSize) || pageSize < 1) throw new Error('pageSize must be a positive integer');
    this.options = options;
    this.instructions = options.instructions;
    this.pageSize = pageSize;
    this.logging = options.logging ?? true;
    this.handlers = this.logging ? HANDLERS : HANDLERS_WITHOUT_LOGGING;
  }

  /** What initialize announces, derived from what is registered; recomputed after a change, not per session. */
  get capabilities(): ServerCapabilities {
    this.capabilitiesCache ??= this.deriveCapabilities();
    return this.capabilitiesCache;
  }

  /**
   * Registers a tool. Its schemas are compiled here, once; with a Standard Schema as
   * `inputSchema` the handler's `args` have the schema's output type. Throws when the name is
   * taken or a schema is invalid.
   */
  tool<S extends SchemaInput | undefined = undefined>(def: ToolDef<S>, handler: ToolHandler<S>): ToolHandle {
    const entry = buildTool(def as ToolDef, handler as ToolHandler<any>, this.nextSeq++);
    this.toolEntries.add(entry);
    return new RegistryHandle(this.toolEntries, entry, rebuildTool);
  }

  /** Registers a resource at a fixed URI. Throws when the URI is taken. */
  resource(def: ResourceDef, read: ReadResource): ResourceHandle {
    const entry = buildResource(def, read, this.nextSeq++);
    this.resourceEntries.add(entry);
    return new RegistryHandle(this.resourceEntries, entry, rebuildResource);
  }

  /**
   * Registers a resource template: resources/read of a URI no static resource has is served by
   * the first enabled template, in registration order, that matches it. Throws when the template
   * is taken or invalid, or a completer names a variable the template does not have.
   */
  resourceTemplate(def: ResourceTemplateDef, callbacks: ResourceTemplateCallbacks): ResourceTemplateHandle {
    const entry = buildTemplate(def, callbacks, this.nextSeq++);
    this.templateEntries.add(entry);
    return new RegistryHandle(this.templateEntries, entry, rebuildTemplate);
  }

  /** Registers a prompt. Throws when the name is taken or a completer names no argument. */
  prompt(def: PromptDef, get: GetPrompt): PromptHandle {
    const entry = buildPrompt(def, get, this.nextSeq++);
    this.promptEntries.add(entry);
    return new RegistryHandle(this.promptEntries, entry, rebuildPrompt);
  }

  /**
   * Sends `notifications/resources/updated` to the sessions subscribed to `uri`, and to no other: once to each,
   * and with `shared`, to each shared session whichever process serves it.
   */
  resourceUpdated(uri: string): void {
    const shared = this.shared;
    shared?.resourceUpdated(uri);
    const message: JsonRpcNotification = { jsonrpc: '2.0', method: Method.ResourceUpdated, params: { uri } };
    for (const session of this.sessions) {
      if (session.subscriptions?.has(uri) && (shared === undefined || !shared.has(session))) {
        session.sendShared(message);
      }
    }
  }

  /**
   * Logs to every client: sends `notifications/message` to each initialized session whose level admits
   * `level` (`ServerSession.log` for one), over its standalone stream, building and serializing the message
   * once for all. Answers how many sessions it went to: 0 when the server does not declare logging.
   */
  log(level: LoggingLevel, data: unknown, logger?: string): number {
    if (!this.logging) return 0;
    const params: Params = logger === undefined ? { level, data } : { level, logger, data };
    const message: JsonRpcNotification = { jsonrpc: '2.0', method: Method.LoggingMessage, params };
    let sent = 0;
    for (const session of this.sessions) {
      if (session.protocolVersion === undefined || !session.logs(level)) continue;
      session.sendShared(message);
      sent++;
    }
    return sent;
  }

  /** Serves one client over `connection`: creates its session, tracks it in `sessions` and starts it. */
  connect(connection: Connection, options: ServerConnectOptions = {}): ServerSession {
    const session = new ServerSession(this, connection, options.preinitialized);
    this.sessions.add(session);
    this.onsession?.(session);
    session.start();
    return session;
  }

  /** Closes every session. */
  async close(): Promise<void> {
    await Promise.all(Array.from(this.sessions, (session) => session.close()));
  }

  /** @internal Runs an initialized session's request through the shared method table. */
  dispatch(session: ServerSession, request: JsonRpcRequest, ctx: ServerContext): Result | Promise<Result> {
    const handler = this.handlers[request.method];
    if (handler === undefined)
      throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    return handler(this, session, request.params ?? NO_PARAMS, ctx);
  }

  private deriveCapabilities(): ServerCapabilities {
    const capabilities: ServerCapabilities = {};
    if (this.logging) capabilities.logging = {};
    if (this.hasCompleters()) capabilities.completions = {};
    if (this.promptEntries.size > 0) capabilities.prompts = { listChanged: true };
    if (this.resourceEntries.size > 0 || this.templateEntries.size > 0) {
      capabilities.resources = { subscribe: true, listChanged: true };
    }
    if (this.toolEntries.size > 0) capabilities.tools = { listChanged: true };
    return Object.freeze(Object.assign(capabilities, this.options.capabilities));
  }

  private hasCompleters(): boolean {
    for (const prompt of this.promptEntries.values()) if (prompt.completers !== undefined) return true;
    for (const template of this.templateEntries.values()) if (template.completers !== undefined) return true;
    return false;
  }

  private changed(kind: number): void {
    this.capabilitiesCache = undefined;
    if (this.sessions.size === 0) return;
    if (this.pendingChanges === 0) queueMicrotask(this.flushChanges);
    this.pendingChanges |= kind;
  }

  /** Tells each initialized session, once per kind, of the changes made since the last flush. */
  private readonly flushChanges = (): void => {
    const kinds = this.pendingChanges;
    this.pendingChanges = 0;
    for (const session of this.sessions) {
      // A session learns of a list only through the capabilities it was announced.
      const announced = session.serverCapabilities;
      if (!session.initialized || announced === undefined) continue;
      if (kinds & TOOLS && announced.tools?.listChanged) session.sendShared(TOOLS_CHANGED);
      if (kinds & RESOURCES && announced.resources?.listChanged) session.sendShared(RESOURCES_CHANGED);
      if (kinds & PROMPTS && announced.prompts?.listChanged) session.sendShared(PROMPTS_CHANGED);
    }
  };
}

/** One page of a registry's enabled items, as the list method of `kind` answers it. */
function listPage<E extends Entry<T>, T>(
  kind: 'tools' | 'resourceTemplates' | 'prompts',
  registry: Registry<E, T>,
  params: Params,
  pageSize: number,
): Result {
  const { entries, published } = registry.list();
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

/** The methods every server answers, by name; shared by all servers and sessions. */
const HANDLERS_WITHOUT_LOGGING: Readonly<Record<string, RequestHandler | undefined>> = Object.assign(
  Object.create(null),
  {
    [Method.ToolsList](server, _session, params) {
      return listPage('tools', server.toolEntries, params, server.pageSize);
    },
    [Method.ToolsCall](server, _session, params, ctx) {
      const { name, arguments: args } = params as unknown as CallToolRequestParams;
      const entry = server.toolEntries.find(name);
      if (entry === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      return callTool(entry, args, ctx);
    },
    [Method.ResourcesList](server, _session, params, ctx) {
      const cursor = (params as PaginatedRequestParams).cursor;
      const page = listResources(
        server.resourceEntries,
        server.templateEntries,
        cursor,
        server.pageSize,
        ctx,
      );
      return page instanceof Promise
        ? page.then((p) => listResult('resources', p))
        : listResult('resources', page);
    },
    [Method.ResourcesTemplatesList](server, _session, params) {
      return listPage('resourceTemplates', server.templateEntries, params, server.pageSize);
    },
    [Method.ResourcesRead](server, _session, params, ctx) {
      const { uri } = params as unknown as ResourceRequestParams;
      return readResource(server.resourceEntries, server.templateEntries, uri, ctx);
    },
    [Method.ResourcesSubscribe](_server, session, params) {
      session.subscriptions ??= new Set();
      session.subscriptions.add((params as unknown as ResourceRequestParams).uri);
      return EMPTY_RESULT;
    },
    [Method.ResourcesUnsubscribe](_server, session, params) {
      session.subscriptions?.delete((params as unknown as ResourceRequestParams).uri);
      return EMPTY_RESULT;
    },
    [Method.PromptsList](server, _session, params) {
      return listPage('prompts', server.promptEntries, params, server.pageSize);
    },
    [Method.PromptsGet](server, _session, params, ctx) {
      const { name, arguments: args } = params as unknown as GetPromptRequestParams;
      const entry = server.promptEntries.find(name);
      if (entry === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
      return getPrompt(entry, args, ctx);
    },
    [Method.CompletionComplete](server, _session, params, ctx) {
      const request = params as unknown as CompleteRequestParams;
      return complete(server.promptEntries, server.resourceEntries, server.templateEntries, request, ctx);
    },
  } satisfies Record<string, RequestHandler>,
);

/** The table of a server that declares logging. */
const HANDLERS: Readonly<Record<string, RequestHandler | undefined>> = Object.assign(
  Object.create(null),
  HANDLERS_WITHOUT_LOGGING,
  {
    [Method.LoggingSetLevel](_server, session, params) {
      session.logLevel = (params as unknown as SetLevelRequestParams).level;
      return EMPTY_RESULT;
    },
  } satisfies Record<string, RequestHandler>,
);
