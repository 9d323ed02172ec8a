import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest, Params } from '../jsonrpc/types.js';
import {
  type CallToolResult,
  type CompleteRequestParams,
  type CompleteResult,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type Cursor,
  type ElicitationCompleteNotificationParams,
  type ElicitRequestFormParams,
  type ElicitRequestParams,
  type ElicitRequestURLParams,
  type ElicitResult,
  type GetPromptResult,
  type Implementation,
  type InitializeResult,
  type JsonObject,
  type ListPromptsResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ListToolsResult,
  type LoggingLevel,
  type LoggingMessageNotificationParams,
  Method,
  type ObjectSchema,
  type ProgressNotificationParams,
  type Prompt,
  type PromptReference,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type ResourceTemplateReference,
  type ResourceUpdatedNotificationParams,
  type Root,
  type ServerCapabilities,
  type Tool,
} from '../protocol/types.js';
import { validateInitializeResult } from '../protocol/validate.js';
import { isLegacyVersion, LEGACY_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import { type CompiledSchema, compileSchema } from '../server/schema.js';
import type { Connection } from '../session/connection.js';
import { CapabilityError } from '../session/errors.js';
import { type RequestContext, type RequestOptions, Session } from '../session/session.js';
import type { Client, ClientConnectOptions } from './client.js';
import { applyElicitationDefaults } from './elicitation-defaults.js';
import { Events, type Listener } from './events.js';
import { paginate } from './paginate.js';
import { checkRoots } from './roots.js';

/** What a client handler (sampling, elicitation) gets besides its params: signal, progress, the session. */
export type ClientContext = RequestContext<ClientSession>;

/** The events of a ClientSession and their listeners' arguments: what the server notified. */
export interface ClientSessionEvents {
  /** `notifications/tools/list_changed` (the cached output schemas are already forgotten). */
  toolsChanged: [];
  /** `notifications/resources/list_changed`. */
  resourcesChanged: [];
  /** `notifications/prompts/list_changed`. */
  promptsChanged: [];
  /** `notifications/resources/updated`, for a subscribed resource. */
  resourceUpdated: [params: ResourceUpdatedNotificationParams];
  /** `notifications/message`: a log message at or above the level set with setLoggingLevel. */
  log: [params: LoggingMessageNotificationParams];
  /** Progress no pending request of this session claims (`onprogress` receives the others). */
  progress: [params: ProgressNotificationParams];
  /** `notifications/elicitation/complete`: an out-of-band (URL mode) elicitation finished. */
  elicitationComplete: [params: ElicitationCompleteNotificationParams];
  /** Every notification that reaches the session, after its own event; the catch-all for unknown methods. */
  notification: [notification: JsonRpcNotification];
}

/** A server feature a client request needs, by capability name. */
type ServerFeature = 'tools' | 'resources' | 'prompts' | 'completions' | 'logging';

/** What callTool knows of a tool's output: its schema, compiled on the tool's first call. */
interface OutputCheck {
  readonly schema: ObjectSchema;
  /** undefined until the first call; null when the schema could not be compiled (reported). */
  compiled?: CompiledSchema | null;
}

const noop = () => {};

/**
 * One initialized connection to an MCP server, made by `Client.connect`. Holds what differs per
 * server: its info, capabilities, instructions, the negotiated version, this client's current roots
 * and the output schemas of the server's tools.
 *
 * Promise: every request method first checks that the server declared the capability it needs and
 * rejects with CapabilityError, sending nothing, when it did not (`ping` is always allowed). All
 * take RequestOptions (signal, timeout, onprogress, maxTotalTimeout). Server requests are answered
 * with the Client's handlers; server notifications become events (`on`).
 */
export class ClientSession extends Session {
  private initializeResult: InitializeResult | undefined;
  private roots: Root[];
  private readonly events = new Events<ClientSessionEvents>((err) => this.report(err));
  /** Tools known from tools/list: an entry per tool, null for those without an outputSchema. */
  private readonly outputs = new Map<string, OutputCheck | null>();
  /** True once a whole tool list has been read since the last list_changed. */
  private toolsListed = false;
  /** Bumped by list_changed, so that a listing begun before it records nothing. */
  private toolsGeneration = 0;
  /** The listing callTool started to learn output schemas; shared by concurrent calls. */
  private toolListing: Promise<void> | undefined;

  /** @internal Made by Client.connect, which runs `handshake` before handing it out. */
  constructor(
    connection: Connection,
    private readonly client: Client,
  ) {
    super(connection, client.options);
    this.roots = client.options.roots?.slice() ?? [];
  }

  /** The server's name, version and other details from initialize. */
  get serverInfo(): Implementation {
    return this.initialized().serverInfo;
  }

  /** What the server declared it offers. */
  get serverCapabilities(): ServerCapabilities {
    return this.initialized().capabilities;
  }

  /** The server's hints on how to use it, if it gave any. */
  get instructions(): string | undefined {
    return this.initialized().instructions;
  }

  /** This client's roots as the server sees them through roots/list. */
  get currentRoots(): readonly Root[] {
    return this.roots;
  }

  /**
   * @internal Client.connect's body: initialize, check the answer, store it, send initialized.
   * Closes the connection on any failure.
   */
  async handshake(options: ClientConnectOptions): Promise<void> {
    this.start();
    try {
      await this.initialize(options);
    } catch (err) {
      await this.close().catch(noop);
      throw err;
    }
  }

  /**
   * The transport reached a fresh server session (see `Receiver.restarted`): initialize it, which
   * announces this client's capabilities and roots again, and forget what the old one told us.
   */
  protected override async reinitialize(): Promise<void> {
    this.toolsGeneration++;
    this.toolsListed = false;
    this.outputs.clear();
    await this.initialize({ timeout: this.requestTimeout });
  }

  /** initialize, check the answer, store it, send initialized. */
  private async initialize(options: ClientConnectOptions): Promise<void> {
    const result = await this.request<InitializeResult>(Method.Initialize, this.client.initializeParams, {
      signal: options.signal,
      timeout: options.timeout,
    });
    const problem = validateInitializeResult(result);
    if (problem !== undefined) {
      throw new McpError(ErrorCode.InvalidRequest, `The server's initialize result is invalid: ${problem}`);
    }
    if (!isLegacyVersion(result.protocolVersion)) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `The server chose protocol version "${result.protocolVersion}", which this client does not support ` +
          `(it asked for "${this.client.protocolVersion}"; it supports ${LEGACY_PROTOCOL_VERSIONS.join(', ')})`,
      );
    }
    this.initializeResult = result;
    this.protocolVersion = result.protocolVersion;
    await this.notify(Method.Initialized);
  }

  // ---- events ----

  /** Adds a listener for a server notification; returns the function that removes it. */
  on<K extends keyof ClientSessionEvents>(event: K, listener: Listener<ClientSessionEvents, K>): () => void {
    return this.events.on(event, listener);
  }

  /** Removes a listener added with `on`. */
  off<K extends keyof ClientSessionEvents>(event: K, listener: Listener<ClientSessionEvents, K>): void {
    this.events.off(event, listener);
  }

  // ---- tools ----

  /** One page of the server's tools. Remembers their output schemas for callTool. */
  async listTools(cursor?: Cursor, options?: RequestOptions): Promise<ListToolsResult> {
    this.require('tools', Method.ToolsList);
    const generation = this.toolsGeneration;
    const result = await this.request<ListToolsResult>(Method.ToolsList, cursorParams(cursor), options);
    if (generation === this.toolsGeneration && Array.isArray(result.tools)) {
      for (const tool of result.tools) this.outputs.set(tool.name, this.outputCheck(tool));
      if (cursor === undefined && result.nextCursor === undefined) this.toolsListed = true;
    }
    return result;
  }

  /** Every tool of the server, page after page. */
  async *tools(options?: RequestOptions): AsyncGenerator<Tool, void, undefined> {
    this.require('tools', Method.ToolsList);
    const generation = this.toolsGeneration;
    yield* paginate<ListToolsResult, Tool>(Method.ToolsList, 'tools', (cursor) =>
      this.listTools(cursor, options),
    );
    if (generation === this.toolsGeneration) this.toolsListed = true;
  }

  /**
   * Calls a tool. When the tool has an outputSchema (learnt from tools/list, which is read once
   * first if this tool is not known yet) and the result is not an error, the result must carry
   * `structuredContent` that conforms to it; otherwise this rejects with an McpError naming the
   * offending field, the result in its `data`.
   */
  async callTool(name: string, args?: JsonObject, options?: RequestOptions): Promise<CallToolResult> {
    this.require('tools', Method.ToolsCall);
    let output = this.outputs.get(name);
    if (output === undefined && !this.toolsListed) {
      await this.learnTools(options);
      output = this.outputs.get(name);
    }
    const params: Params = args === undefined ? { name } : { name, arguments: args };
    const result = await this.request<CallToolResult>(Method.ToolsCall, params, options);
    if (output != null && result.isError !== true) await this.checkOutput(name, output, result);
    return result;
  }

  // ---- resources ----

  /** One page of the server's resources. */
  listResources(cursor?: Cursor, options?: RequestOptions): Promise<ListResourcesResult> {
    return this.send('resources', Method.ResourcesList, cursorParams(cursor), options);
  }

  /** Every resource of the server, page after page. */
  async *resources(options?: RequestOptions): AsyncGenerator<Resource, void, undefined> {
    this.require('resources', Method.ResourcesList);
    yield* paginate<ListResourcesResult, Resource>(Method.ResourcesList, 'resources', (cursor) =>
      this.listResources(cursor, options),
    );
  }

  /** One page of the server's resource templates. */
  listResourceTemplates(cursor?: Cursor, options?: RequestOptions): Promise<ListResourceTemplatesResult> {
    return this.send('resources', Method.ResourcesTemplatesList, cursorParams(cursor), options);
  }

  /** Every resource template of the server, page after page. */
  async *resourceTemplates(options?: RequestOptions): AsyncGenerator<ResourceTemplate, void, undefined> {
    this.require('resources', Method.ResourcesTemplatesList);
    yield* paginate<ListResourceTemplatesResult, ResourceTemplate>(
      Method.ResourcesTemplatesList,
      'resourceTemplates',
      (cursor) => this.listResourceTemplates(cursor, options),
    );
  }

  /** Reads one resource's contents. */
  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    return this.send('resources', Method.ResourcesRead, { uri }, options);
  }

  /** Asks for `resourceUpdated` events for `uri`; needs the server's `resources.subscribe`. */
  async subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    this.requireSubscribe(Method.ResourcesSubscribe);
    await this.request(Method.ResourcesSubscribe, { uri }, options);
  }

  /** Stops `resourceUpdated` events for `uri`. */
  async unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    this.requireSubscribe(Method.ResourcesUnsubscribe);
    await this.request(Method.ResourcesUnsubscribe, { uri }, options);
  }

  // ---- prompts ----

  /** One page of the server's prompts. */
  listPrompts(cursor?: Cursor, options?: RequestOptions): Promise<ListPromptsResult> {
    return this.send('prompts', Method.PromptsList, cursorParams(cursor), options);
  }

  /** Every prompt of the server, page after page. */
  async *prompts(options?: RequestOptions): AsyncGenerator<Prompt, void, undefined> {
    this.require('prompts', Method.PromptsList);
    yield* paginate<ListPromptsResult, Prompt>(Method.PromptsList, 'prompts', (cursor) =>
      this.listPrompts(cursor, options),
    );
  }

  /** Renders a prompt with its arguments. */
  getPrompt(
    name: string,
    args?: { [key: string]: string },
    options?: RequestOptions,
  ): Promise<GetPromptResult> {
    return this.send(
      'prompts',
      Method.PromptsGet,
      args === undefined ? { name } : { name, arguments: args },
      options,
    );
  }

  // ---- completion, logging ----

  /** Suggestions for one argument of a prompt or resource template; needs the server's `completions`. */
  complete(
    ref: PromptReference | ResourceTemplateReference,
    argument: CompleteRequestParams['argument'],
    context?: CompleteRequestParams['context'],
    options?: RequestOptions,
  ): Promise<CompleteResult> {
    const params: Params = context === undefined ? { ref, argument } : { ref, argument, context };
    return this.send('completions', Method.CompletionComplete, params, options);
  }

  /** Sets the least severe level of the `log` events the server sends; needs the server's `logging`. */
  async setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Promise<void> {
    await this.send('logging', Method.LoggingSetLevel, { level }, options);
  }

  // ---- roots ----

  /**
   * Replaces this session's roots and tells the server (`notifications/roots/list_changed`), which
   * then reads them with roots/list. Throws when the Client did not declare roots (no `roots` option).
   */
  async setRoots(roots: Root[]): Promise<void> {
    if (this.client.capabilities.roots === undefined) {
      throw new Error('setRoots needs the roots capability: give the Client a `roots` option (even [])');
    }
    checkRoots(roots);
    this.roots = roots.slice();
    await this.notify(Method.RootsListChanged);
  }

  // ---- incoming (the Session contract) ----

  protected override handleRequest(
    request: JsonRpcRequest,
    ctx: ClientContext,
  ): Promise<Record<string, unknown>> | Record<string, unknown> {
    switch (request.method) {
      case Method.RootsList:
        if (this.client.capabilities.roots === undefined) throw notDeclared(request.method, 'roots');
        return { roots: this.roots };
      case Method.SamplingCreateMessage:
        return this.sample(request.params as unknown as CreateMessageRequestParams, ctx);
      case Method.ElicitationCreate:
        return this.elicit(request.params as unknown as ElicitRequestParams, ctx);
      default:
        throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    }
  }

  protected override handleNotification(notification: JsonRpcNotification): void {
    const params = notification.params;
    switch (notification.method) {
      case Method.ToolListChanged:
        this.forgetTools();
        this.events.emit('toolsChanged');
        break;
      case Method.ResourceListChanged:
        this.events.emit('resourcesChanged');
        break;
      case Method.PromptListChanged:
        this.events.emit('promptsChanged');
        break;
      case Method.ResourceUpdated:
        this.events.emit('resourceUpdated', params as unknown as ResourceUpdatedNotificationParams);
        break;
      case Method.LoggingMessage:
        this.events.emit('log', params as unknown as LoggingMessageNotificationParams);
        break;
      case Method.Progress:
        this.events.emit('progress', params as unknown as ProgressNotificationParams);
        break;
      case Method.ElicitationComplete:
        this.events.emit('elicitationComplete', params as unknown as ElicitationCompleteNotificationParams);
        break;
    }
    this.events.emit('notification', notification);
  }

  private sample(
    params: CreateMessageRequestParams,
    ctx: ClientContext,
  ): Promise<CreateMessageResult> | CreateMessageResult {
    const handler = this.client.options.sampling;
    if (handler === undefined) throw notDeclared(Method.SamplingCreateMessage, 'sampling');
    if (
      (params.tools !== undefined || params.toolChoice !== undefined) &&
      !this.client.options.samplingTools
    ) {
      throw new McpError(
        ErrorCode.InvalidParams,
        'Invalid params: this client did not declare the sampling.tools capability, ' +
          'so a sampling request must not carry "tools" or "toolChoice"',
      );
    }
    return handler(params, ctx);
  }

  private async elicit(params: ElicitRequestParams, ctx: ClientContext): Promise<ElicitResult> {
    const handlers = this.client.options.elicitation;
    if (this.client.capabilities.elicitation === undefined)
      throw notDeclared(Method.ElicitationCreate, 'elicitation');
    const mode = params.mode ?? 'form';
    if (mode === 'url') {
      if (handlers?.url === undefined) throw modeNotDeclared(mode);
      return handlers.url(params as ElicitRequestURLParams, ctx);
    }
    if (mode !== 'form' || handlers?.form === undefined) throw modeNotDeclared(mode);
    const form = params as ElicitRequestFormParams;
    const result = await handlers.form(form, ctx);
    if (result.action !== 'accept' || this.client.options.applyElicitationDefaults === false) return result;
    const content = applyElicitationDefaults(form.requestedSchema, result.content);
    return content === result.content ? result : { ...result, content };
  }

  // ---- helpers ----

  private initialized(): InitializeResult {
    if (this.initializeResult === undefined) throw new Error('The session has not completed initialize yet');
    return this.initializeResult;
  }

  private require(feature: ServerFeature, method: string): void {
    if (this.serverCapabilities[feature] === undefined) {
      throw new CapabilityError(
        `The server did not declare the "${feature}" capability, so ${method} was not sent`,
      );
    }
  }

  private requireSubscribe(method: string): void {
    if (this.serverCapabilities.resources?.subscribe !== true) {
      throw new CapabilityError(
        `The server did not declare "resources.subscribe", so ${method} was not sent`,
      );
    }
  }

  /** A request that needs `feature`: rejects with CapabilityError, sending nothing, without it. */
  private send<R>(
    feature: ServerFeature,
    method: string,
    params: Params | undefined,
    options?: RequestOptions,
  ): Promise<R> {
    try {
      this.require(feature, method);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.request<R>(method, params, options);
  }

  /** Reads the whole tool list once, for the output schemas; concurrent callers share the listing. */
  private learnTools(options: RequestOptions | undefined): Promise<void> {
    // Without the caller's signal: the listing may be shared with callers that did not abort.
    this.toolListing ??= (async () => {
      try {
        for await (const _ of this.tools({ timeout: options?.timeout })) {
          // Consumed for its side effect: listTools records each page.
        }
      } finally {
        this.toolListing = undefined;
      }
    })();
    return this.toolListing;
  }

  /**
   * The entry for a listed tool. A schema equal to the one already compiled keeps its validator,
   * so a client that lists tools before every call does not recompile each time.
   */
  private outputCheck(tool: Tool): OutputCheck | null {
    const schema = tool.outputSchema;
    if (schema === undefined) return null;
    const previous = this.outputs.get(tool.name);
    if (previous?.compiled != null && JSON.stringify(previous.schema) === JSON.stringify(schema))
      return previous;
    return { schema };
  }

  private forgetTools(): void {
    this.outputs.clear();
    this.toolsListed = false;
    this.toolsGeneration++;
  }

  private async checkOutput(name: string, output: OutputCheck, result: CallToolResult): Promise<void> {
    if (output.compiled === undefined) {
      try {
        output.compiled = compileSchema(output.schema, 'output');
      } catch (err) {
        // A schema this library cannot compile must not make the tool unusable; say so once.
        output.compiled = null;
        this.report(new Error(`Tool "${name}": its outputSchema is not checked: ${(err as Error).message}`));
      }
    }
    if (output.compiled === null) return;
    const structured = result.structuredContent;
    if (structured == null) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Tool "${name}" declares an outputSchema but its result has no structuredContent`,
        { tool: name, result },
      );
    }
    let outcome = output.compiled.validate(structured);
    if (outcome instanceof Promise) outcome = await outcome;
    if (!outcome.ok) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Tool "${name}" returned structuredContent that does not match its outputSchema: ${outcome.message}`,
        { tool: name, result },
      );
    }
  }
}

function cursorParams(cursor: Cursor | undefined): Params | undefined {
  return cursor === undefined ? undefined : { cursor };
}

/** The answer to a server request for a feature this client did not declare. */
function notDeclared(method: string, capability: string): McpError {
  return new McpError(
    ErrorCode.MethodNotFound,
    `Method not found: ${method} (this client did not declare the "${capability}" capability)`,
  );
}

function modeNotDeclared(mode: string): McpError {
  return new McpError(
    ErrorCode.InvalidParams,
    `Invalid params: this client did not declare elicitation mode ${JSON.stringify(mode)}`,
  );
}
