import type { JsonRpcNotification, JsonRpcRequest, Params } from '../jsonrpc/types.js';
import type { Connection } from '../peer/connection.js';
import { MetaKey } from '../protocol/envelope.js';
import { READ_ONLY_METHODS } from '../protocol/modern-types.js';
import {
  type Implementation,
  type JsonObject,
  type LoggingLevel,
  Method,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  type Result,
  type ServerCapabilities,
  type Tool,
} from '../protocol/types.js';
import '../telemetry/node.js';
import { resolveTelemetry } from '../telemetry/resolve.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { Chain } from '../util/chain.js';
import { AnnouncedCapabilities } from './capabilities.js';
import type { LegacyContext } from './context.js';
import { dispatchLegacy } from './legacy/legacy-dispatch.js';
import { type PreinitializedState, ServerSession } from './legacy/server-session.js';
import { toLegacySessions } from './legacy/session-events.js';
import { ListChanges } from './list-changes.js';
import { MethodTables } from './method-tables.js';
import {
  type ExtensionMethod,
  legacyMethods,
  type MethodHandler,
  type MethodTable,
  MODERN_METHODS,
  withMethod,
  withMethods,
} from './methods.js';
import type { Middleware } from './middleware.js';
import { RequestStateSealer } from './modern/request-state.js';
import type { PromptArgs, PromptArgumentList } from './prompt-args.js';
import {
  buildPrompt,
  type GetPrompt,
  type PromptDef,
  type PromptEntry,
  type PromptUpdate,
  rebuildPrompt,
} from './prompts.js';
import { type ChangeAudience, type Handle, Registry, RegistryHandle } from './registry.js';
import {
  buildResource,
  buildTemplate,
  type ReadResource,
  type ResourceDef,
  type ResourceEntry,
  type ResourceTemplateCallbacks,
  type ResourceTemplateDef,
  type ResourceTemplateUpdate,
  type ResourceUpdate,
  rebuildResource,
  rebuildTemplate,
  type TemplateEntry,
} from './resources.js';
import type { SchemaInput, StandardSchemaV1 } from './schema.js';
import {
  registerSdkResource,
  registerSdkTool,
  type SdkReadCallback,
  type SdkResourceConfig,
  type SdkToolCallback,
  type SdkToolConfig,
} from './sdk-registration.js';
import { ListKind, ServerEvents } from './server-events.js';
import { type CacheHints, DEFAULT_CACHE_HINTS, type ServerOptions } from './server-options.js';
import type { SharedSessions } from './shared-sessions.js';
import { type TaskSettings, taskSettings } from './tasks/task-options.js';
import {
  buildTool,
  rebuildTool,
  type ToolDef,
  type ToolEntry,
  type ToolHandler,
  type ToolUpdate,
} from './tools.js';

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

const { Tools: TOOLS, Resources: RESOURCES, Prompts: PROMPTS } = ListKind;

const DEFAULT_PAGE_SIZE = 100;

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
  /** The connected sessions, in the order they connected; a session leaves when its connection closes. */
  readonly sessions = new Chain<ServerSession>();
  /** Called with each new session before it reads its first message, e.g. to set `oninitialized`. */
  onsession: ((session: ServerSession) => void) | undefined;
  /**
   * Set by what shares this server's sessions with other processes (a `RedisCluster`, through the handler it
   * serves): `resourceUpdated` hands it the sessions it shares.
   */
  shared: SharedSessions | undefined;

  /**
   * List changes and resource updates, published once each: legacy sessions hear them through the first
   * listener (subscribed here), modern listen streams through their own.
   */
  readonly events: ServerEvents;

  /** @internal */ readonly toolEntries = new Registry<ToolEntry, Tool>('Tool', (a) =>
    this.changed(TOOLS, a),
  );
  /** @internal */ readonly resourceEntries = new Registry<ResourceEntry, Resource>('Resource', (a) =>
    this.changed(RESOURCES, a),
  );
  /** @internal */ readonly templateEntries = new Registry<TemplateEntry, ResourceTemplate>(
    'Resource template',
    (a) => this.changed(RESOURCES, a),
  );
  /** @internal */ readonly promptEntries = new Registry<PromptEntry, Prompt>('Prompt', (a) =>
    this.changed(PROMPTS, a),
  );

  /** @internal Seals and opens the `requestState` of modern multi-round-trip requests. */
  readonly requestStates: RequestStateSealer;
  readonly cacheHints: CacheHints;
  /** @internal The `_meta` every modern result carries: the server's identity, built once. */
  readonly serverInfoMeta: Readonly<Record<string, Implementation>>;
  /** Its methods in both eras, extensions' included, as registered and as served (in the middleware). */
  private readonly methods: MethodTables;
  /** @internal The methods whose modern results carry the caching hints. */
  readonly cacheableMethods = new Set<string>(READ_ONLY_METHODS);
  /**
   * @internal Where its requests, sessions and streams are observed, by every session and by the transports that
   * serve it; undefined when nothing listens (see `TelemetryOptions`).
   */
  readonly telemetry: Telemetry | undefined;
  /** @internal How tools run as tasks; undefined when the server runs none. */
  readonly tasks: TaskSettings | undefined;
  /** @internal The extensions announced, by identifier, with their settings. */
  readonly extensions = new Map<string, JsonObject>();
  /** Registration order across all kinds; starts at 1 so that a cursor's 0 precedes everything. */
  private nextSeq = 1;
  /** This tick's list changes, published as one event at its end. */
  private readonly pendingChanges = new ListChanges((event) => this.events.publish(event));
  private readonly announced = new AnnouncedCapabilities(this);

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
    this.tasks = taskSettings(options.tasks);
    this.methods = new MethodTables(legacyMethods(this.logging, this.tasks !== undefined), MODERN_METHODS);
    this.requestStates = new RequestStateSealer(options.requestStateKeys, {
      ttlMs: options.requestStateTtlMs,
      clock: options.clock,
    });
    this.cacheHints = options.cacheHints ?? DEFAULT_CACHE_HINTS;
    this.serverInfoMeta = Object.freeze({ [MetaKey.ServerInfo]: info });
    this.telemetry = resolveTelemetry(options);
    this.events = new ServerEvents((err) =>
      options.onerror?.(err instanceof Error ? err : new Error(String(err))),
    );
    this.events.subscribe(toLegacySessions(this));
  }

  /**
   * Announces a protocol extension (SEP-1724) with its settings in `capabilities.extensions`, at initialize and
   * in `server/discover`; an extension's registration (MCP Apps' `registerApp`) calls it. Announce before
   * serving: a 2025 session keeps what it was told at initialize. Announcing an identifier again replaces it.
   */
  announceExtension(id: string, settings: JsonObject = {}): void {
    this.extensions.set(id, settings);
    this.announced.changed();
  }

  /**
   * Adds a method of a protocol extension, answered in both eras (`serveSkills` adds `skills/list`). Throws
   * when the server already has a method of that name. Add before serving, as for `announceExtension`.
   */
  addMethod(name: string, method: ExtensionMethod): void {
    if (this.legacyMethods[name] !== undefined || this.modernMethods[name] !== undefined) {
      throw new Error(`The server already has a method "${name}"`);
    }
    const own = this.methods.registered;
    this.methods.set(withMethod(own.legacy, name, method), withMethod(own.modern, name, method));
    if (method.cacheable) this.cacheableMethods.add(name);
  }

  /**
   * Runs `middleware` around every request but initialize and ping, in both eras and on every transport, inside the
   * middleware registered before it (see `Middleware`; `beforeToolCall` and `afterToolCall` make the common
   * ones). Without any, requests pay nothing for it.
   */
  use(middleware: Middleware): this {
    this.methods.use(middleware);
    return this;
  }

  /** @internal The methods a legacy session may call (with or without logging/setLevel), as served. */
  get legacyMethods(): MethodTable {
    return this.methods.legacy;
  }

  /** @internal The methods a modern request may call, as served. */
  get modernMethods(): MethodTable {
    return this.methods.modern;
  }

  /**
   * @internal Answers these methods with `handlers` in place of its registries' (a bridge answers its child's tools,
   * resources and prompts so): `shared` in both eras, `legacy` in the 2025 era only. Before serving.
   */
  answerWith(
    shared: Readonly<Record<string, MethodHandler>>,
    legacy: Readonly<Record<string, MethodHandler>> = {},
  ): void {
    const own = this.methods.registered;
    this.methods.set(withMethods(own.legacy, { ...shared, ...legacy }), withMethods(own.modern, shared));
  }

  /** What initialize announces, derived from what is registered; recomputed after a change, not per session. */
  get capabilities(): ServerCapabilities {
    return this.announced.legacy;
  }

  /** What initialize announces to a caller without a principal (`capabilities` without `tasks.list`). */
  get anonymousCapabilities(): ServerCapabilities {
    return this.announced.anonymous;
  }

  /** What `server/discover` announces: tasks as the 2026 extension, never 2025-11-25's `tasks` capability. */
  get modernCapabilities(): ServerCapabilities {
    return this.announced.modern;
  }

  /** @internal Hands an error no caller can receive to `onerror`. */
  readonly report = (err: unknown): void => {
    this.options.onerror?.(err instanceof Error ? err : new Error(String(err)));
  };

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

  /**
   * `tool` with the official TypeScript SDK's signature (`McpServer.registerTool`), for helpers written against it
   * (ext-apps' `registerAppTool`): `inputSchema` a Standard Schema or a record of them; the callback gets
   * `(args, ctx)`, or `(ctx)` without an `inputSchema`, with mcpwire's context.
   */
  registerTool(name: string, config: SdkToolConfig, cb: SdkToolCallback): ToolHandle {
    return registerSdkTool(this, name, config, cb);
  }

  /** `resource` with the official SDK's signature (`McpServer.registerResource`), for a fixed URI. */
  registerResource(
    name: string,
    uri: string,
    config: SdkResourceConfig,
    read: SdkReadCallback,
  ): ResourceHandle {
    return registerSdkResource(this, name, uri, config, read);
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

  /**
   * Registers a prompt. Its handler's arguments are typed from its `argsSchema`'s output, or from the names of the
   * `arguments` it lists inline (required ones are strings, others may be undefined); so are the names its
   * completers may have. Throws when the name is taken, both or neither of a schema's forms are usable, or a
   * completer names no argument.
   */
  prompt<
    const L extends PromptArgumentList = PromptArgumentList,
    S extends StandardSchemaV1 | undefined = undefined,
  >(def: PromptDef<L, S>, get: GetPrompt<PromptArgs<L, S>>): PromptHandle {
    // The types that name the arguments are the caller's; the registry holds every prompt alike.
    const entry = buildPrompt(def as PromptDef, get, this.nextSeq++);
    this.promptEntries.add(entry);
    return new RegistryHandle(this.promptEntries, entry, rebuildPrompt);
  }

  /**
   * Sends `notifications/resources/updated` to the sessions subscribed to `uri`, and to no other: once to each,
   * and with `shared`, to each shared session whichever process serves it.
   */
  resourceUpdated(uri: string): void {
    this.shared?.resourceUpdated(uri);
    this.events.publish({ type: 'resource_updated', uri });
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
    await Promise.all(this.sessions.values().map((session) => session.close()));
  }

  /**
   * @internal Runs an initialized session's request through the legacy method table. A handler that answers
   * `inputRequired` is served here: its requests go to the client as server-to-client requests, and it runs
   * again with the answers, as a modern client's retry would.
   */
  dispatch(request: JsonRpcRequest, ctx: LegacyContext): Result | Promise<Result> {
    return dispatchLegacy(this, request, ctx);
  }

  private changed(kind: number, audience: ChangeAudience): void {
    this.announced.changed();
    // Only the sessions' own listener: nobody to tell.
    if (this.sessions.size === 0 && this.events.size === 1) return;
    this.pendingChanges.add(kind, audience);
  }
}
