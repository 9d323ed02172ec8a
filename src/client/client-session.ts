import type { Params } from '../jsonrpc/types.js';
import type { Connection } from '../peer/connection.js';
import { JsonRpcPeer } from '../peer/jsonrpc-peer.js';
import type { RequestOptions } from '../peer/peer-options.js';
import { HandlerContext, type RequestContext } from '../peer/request-context.js';
import type { SubscriptionFilter } from '../protocol/modern-types.js';
import {
  type CallToolResult,
  type CompleteRequestParams,
  type CompleteResult,
  type Cursor,
  type GetPromptResult,
  type Implementation,
  type JsonObject,
  type ListPromptsResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ListToolsResult,
  type LoggingLevel,
  Method,
  type Prompt,
  type PromptReference,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type ResourceTemplateReference,
  type Root,
  type ServerCapabilities,
  type Tool,
} from '../protocol/types.js';
import type { Era } from '../protocol/versions.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { requireFeature, requireSubscribe, type ServerFeature } from './capability-checks.js';
import type { Client, ClientConnectOptions } from './client.js';
import { Events, type Listener } from './events.js';
import { roundContext } from './input-rounds.js';
import type { Listen } from './listen.js';
import { chooseEra } from './negotiation/choose-era.js';
import { paginate } from './paginate.js';
import { checkRoots } from './roots.js';
import type { EraVerdict, EraWire, SessionEra } from './session-era.js';
import { type ClientSessionEvents, SessionNotifications } from './session-events.js';
import { eraWire, type SessionParts, taskSession } from './session-wiring.js';
import { followToolCall, sendToolCall, type TaskSession } from './task-call.js';
import type { TaskRequestOptions } from './task-types.js';
import { ClientTasks } from './tasks.js';
import { ToolCatalog } from './tool-catalog.js';

/** What a client handler (sampling, elicitation) gets besides its params: signal, progress, the session. */
export type ClientContext = RequestContext<ClientSession>;

const noop = () => {};

/**
 * One connection to an MCP server, made by `Client.connect` (or `connectUrl`), in whichever era
 * negotiation found: a legacy session (initialize) or modern requests (2026-07-28). Holds what differs
 * per server: its info, capabilities, instructions, the version spoken, this client's current roots and
 * what `tools/list` told of the tools.
 *
 * Promise: the API is the same in both eras. Every request method first checks that the server declared
 * the capability it needs and rejects with CapabilityError, sending nothing, when it did not (`ping` is
 * always allowed). All take RequestOptions (signal, timeout, onprogress, maxTotalTimeoutMs). What the
 * server asks of the client (roots, sampling, elicitation) is answered with the Client's handlers, as
 * server requests (legacy) or `input_required` rounds (modern); server notifications become events
 * (`on`), and `listen` streams them in both eras.
 */
export class ClientSession {
  /** Called once when the connection closes, with what closed it, if known. */
  onclose: ((cause?: Error) => void) | undefined;
  /** Receives every failure that has no caller to reject (the Client's `onerror` unless set here). */
  onerror: ((err: Error) => void) | undefined;
  /** The JSON-RPC peer this session speaks through; what the server sends is answered by this session. */
  private readonly peer: JsonRpcPeer;
  private current: SessionEra | undefined;
  private verdictFound: EraVerdict | undefined;
  private roots: Root[];
  private readonly events = new Events<ClientSessionEvents>((err) => this.report(err));
  private readonly notifications = new SessionNotifications(this.events, () => this.catalog.forget());
  private readonly catalog = new ToolCatalog(
    (options) => this.tools(options),
    (err) => this.report(err),
  );
  /** What its era and its tasks reach of this session. */
  private readonly parts: SessionParts;
  private readonly wire: EraWire;
  /** Tool calls as tasks, followed by hand: start, get, update, cancel, resume (and list, legacy). */
  readonly tasks: ClientTasks;
  private readonly taskSession: TaskSession;

  /** @internal Made by Client.connect, which runs `handshake` before handing it out. */
  constructor(
    connection: Connection,
    private readonly client: Client,
  ) {
    this.peer = new JsonRpcPeer(
      connection,
      {
        get telemetry(): Telemetry | undefined {
          return client.telemetry;
        },
        context: (request, running, info) => new HandlerContext(this.peer, this, request, running, info),
        answer: (request, ctx) => this.wire.answer(request.method, request.params, ctx as ClientContext),
        notified: (notification) => this.notifications.route(notification),
        // A modern server ends a listen on stdio with `notifications/cancelled` naming it.
        cancelled: (id) => this.notifications.cancelled(id),
        reinitialize: () => this.reinitialize(),
      },
      client.options,
    );
    this.onerror = client.options.onerror;
    this.peer.onerror = (err) => this.onerror?.(err);
    this.peer.onclose = (cause) => this.onclose?.(cause);
    const roots = client.options.roots;
    this.roots = Array.isArray(roots) ? roots.slice() : [];
    this.parts = {
      peer: this.peer,
      client,
      catalog: this.catalog,
      roots: typeof roots === 'function' ? roots : () => this.roots,
      spoken: () => this.spoken(),
      capabilities: () => this.serverCapabilities,
      inputContext: (key, method, signal) => roundContext(this.peer, this, key, method, signal),
      onProgress: (listener) => this.on('progress', listener),
      requireTools: () => this.require('tools', Method.ToolsCall),
    };
    this.wire = eraWire(this.parts);
    this.taskSession = taskSession(this.parts, this.wire);
    this.tasks = new ClientTasks(this.taskSession);
  }

  /** The connection this session speaks over. */
  get connection(): Connection {
    return this.peer.connection;
  }

  /** The protocol version spoken, once the handshake is done. */
  get protocolVersion(): string | undefined {
    return this.peer.protocolVersion;
  }

  /** True once the connection has closed. */
  get isClosed(): boolean {
    return this.peer.isClosed;
  }

  /** Closes the connection; requests waiting reject with ConnectionClosedError. */
  close(): Promise<void> {
    return this.peer.close();
  }

  /** The era this session speaks: `'modern'` (2026-07-28 and later) or `'legacy'` (initialize). */
  get era(): Era {
    return this.spoken().name;
  }

  /** What negotiation found; give it as `prior` to a later connect to the same server to skip the probe. */
  get verdict(): EraVerdict {
    this.spoken();
    return this.verdictFound!;
  }

  /** @internal connectUrl names the legacy transport that reached the server, for the verdict it keeps. */
  recordTransport(transport: 'http' | 'sse'): void {
    if (this.verdictFound?.era === 'legacy') this.verdictFound = { ...this.verdictFound, transport };
  }

  /** The server's name, version and other details (from initialize, or from server/discover's `_meta`). */
  get serverInfo(): Implementation {
    return this.spoken().server.serverInfo;
  }

  /** What the server declared it offers. */
  get serverCapabilities(): ServerCapabilities {
    return this.spoken().server.capabilities;
  }

  /** The server's hints on how to use it, if it gave any. */
  get instructions(): string | undefined {
    return this.spoken().server.instructions;
  }

  /** This client's roots as the server sees them through roots/list (none when a function gives them). */
  get currentRoots(): readonly Root[] {
    return this.roots;
  }

  /**
   * @internal Client.connect's body: find the era (unless told), begin it. Closes the connection on any
   * failure.
   */
  async handshake(options: ClientConnectOptions): Promise<void> {
    this.peer.start();
    try {
      await this.begin(options);
    } catch (err) {
      await this.close().catch(noop);
      throw err;
    }
  }

  private async begin(options: ClientConnectOptions): Promise<void> {
    const { era, verdict } = await chooseEra(
      {
        wire: this.wire,
        client: this.client,
        carried: this.peer.connection.era,
        listenRoutes: this.notifications.listenRoutes,
        onNotification: (listener) => this.on('notification', listener),
        inputContext: this.parts.inputContext,
      },
      options,
    );
    this.current = era;
    this.peer.protocolVersion = era.protocolVersion;
    this.verdictFound = verdict;
  }

  /**
   * The transport reached a fresh server session (see `Receiver.restarted`): begin it again, which
   * announces this client's capabilities and roots anew, and forget what the old one told us.
   */
  private async reinitialize(): Promise<void> {
    this.catalog.forget();
    await this.spoken().restart();
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

  /**
   * Streams the notifications `filter` asks for, in either era, and resolves once the server
   * acknowledged (modern: `subscriptions/listen`) or once the resources are subscribed (legacy: the
   * session's own stream carries the changes). `listen.honoured` is the part of the filter the server
   * can serve. A modern listen stream that drops is opened again with backoff, and the reader gets a
   * `resync` event: re-fetch what the filter covers. The events (`toolsChanged`, …) fire as well.
   */
  listen(filter: SubscriptionFilter, options?: RequestOptions): Promise<Listen> {
    if (typeof filter !== 'object' || filter === null) {
      return Promise.reject(new TypeError('listen needs a filter, e.g. { toolsListChanged: true }'));
    }
    return this.spoken().listen(filter, options);
  }

  // ---- tools ----

  /** One page of the server's tools. Remembers their output schemas for callTool. */
  async listTools(cursor?: Cursor, options?: RequestOptions): Promise<ListToolsResult> {
    this.require('tools', Method.ToolsList);
    const generation = this.catalog.begin();
    const result = await this.spoken().request<ListToolsResult>(
      Method.ToolsList,
      cursorParams(cursor),
      options,
    );
    this.catalog.record(generation, result, cursor === undefined);
    return result;
  }

  /** Every tool of the server, page after page. */
  async *tools(options?: RequestOptions): AsyncGenerator<Tool, void, undefined> {
    this.require('tools', Method.ToolsList);
    const generation = this.catalog.begin();
    yield* paginate<ListToolsResult, Tool>(Method.ToolsList, 'tools', (cursor) =>
      this.listTools(cursor, options),
    );
    this.catalog.complete(generation);
  }

  /**
   * Calls a tool. When the tool has an outputSchema (learnt from tools/list, which is read once
   * first if this tool is not known yet) and the result is not an error, the result must carry
   * `structuredContent` that conforms to it; otherwise this rejects with an McpError naming the
   * offending field, the result in its `data`.
   *
   * With the Client option `tasks`, a server may answer with a task: the call then follows it to its end
   * (see `ClientTasks.follow`), `ontask` is told its id and each status, and aborting cancels it.
   */
  async callTool(name: string, args?: JsonObject, options?: TaskRequestOptions): Promise<CallToolResult> {
    this.require('tools', Method.ToolsCall);
    const known = await this.catalog.lookup(name, options);
    const sent = await sendToolCall(this.taskSession, name, args, known?.taskSupport, options);
    const result = await followToolCall(this.taskSession, sent, options);
    if (known !== undefined) await this.catalog.check(name, known, result);
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

  /**
   * Sends any request in the session's era: a protocol extension's (`skills/list`, …) or one this class has no
   * call for. A 2026 request carries the envelope and its rounds are followed to the complete result, as for
   * the calls above; no capability is checked (check an extension in `serverCapabilities.extensions` first: a
   * server without it answers -32601).
   */
  request<R = Record<string, unknown>>(
    method: string,
    params?: Params,
    options?: RequestOptions,
  ): Promise<R> {
    return this.send(undefined, method, params, options);
  }

  /** Reads one resource's contents. */
  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    return this.send('resources', Method.ResourcesRead, { uri }, options);
  }

  /**
   * Asks for `resourceUpdated` events for `uri`; needs the server's `resources.subscribe`. A legacy-era
   * request: in the modern era it rejects, pointing to `listen`.
   */
  async subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    requireSubscribe(this.serverCapabilities, Method.ResourcesSubscribe);
    await this.spoken().subscribeResource(uri, options);
  }

  /** Stops `resourceUpdated` events for `uri`. */
  async unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    requireSubscribe(this.serverCapabilities, Method.ResourcesUnsubscribe);
    await this.spoken().unsubscribeResource(uri, options);
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

  // ---- completion, logging, ping ----

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

  /**
   * Sets the least severe level of the `log` events the server sends; needs the server's `logging`. In the
   * modern era the level rides in the `_meta` of every later request, and nothing is sent now.
   */
  async setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Promise<void> {
    this.require('logging', Method.LoggingSetLevel);
    await this.spoken().setLoggingLevel(level, options);
  }

  /** Checks the server answers: `ping` (legacy), `server/discover` (modern, which has no ping). */
  async ping(options?: RequestOptions): Promise<void> {
    await this.spoken().ping(options);
  }

  // ---- roots ----

  /**
   * Replaces this session's roots; a legacy server is told (`notifications/roots/list_changed`) and reads
   * them with roots/list, a modern one gets them in the next round that asks. Throws when the Client did
   * not declare roots (no `roots` option), or gave them as a function (which `rootsChanged` goes with).
   */
  async setRoots(roots: Root[]): Promise<void> {
    if (typeof this.client.options.roots === 'function') {
      throw new Error(
        "setRoots: this Client's roots come from its `roots` function; call rootsChanged() instead",
      );
    }
    checkRoots(roots);
    this.roots = roots.slice();
    await this.rootsChanged();
  }

  /**
   * Tells the server this client's roots changed: a legacy server hears `notifications/roots/list_changed` (and
   * reads them again), a modern one gets the new ones in the next round that asks.
   */
  async rootsChanged(): Promise<void> {
    if (this.client.capabilities.roots === undefined) {
      throw new Error(
        'roots changed, but this Client declared none: give the Client a `roots` option (even [])',
      );
    }
    await this.spoken().rootsChanged();
  }

  // ---- helpers ----

  private spoken(): SessionEra {
    if (this.current === undefined) throw new Error('The session has not completed its handshake yet');
    return this.current;
  }

  private report(err: unknown): void {
    this.peer.report(err);
  }

  private require(feature: ServerFeature, method: string): void {
    requireFeature(this.serverCapabilities, feature, method);
  }

  /**
   * A request that needs `feature` (none for an extension's): rejects with CapabilityError, sending nothing,
   * without it, and before the handshake with the error saying so.
   */
  private send<R>(
    feature: ServerFeature | undefined,
    method: string,
    params: Params | undefined,
    options?: RequestOptions,
  ): Promise<R> {
    try {
      if (feature !== undefined) this.require(feature, method);
      return this.spoken().request<R>(method, params, options);
    } catch (err) {
      return Promise.reject(err);
    }
  }
}

function cursorParams(cursor: Cursor | undefined): Params | undefined {
  return cursor === undefined ? undefined : { cursor };
}
