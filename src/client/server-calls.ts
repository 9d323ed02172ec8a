import type { Params } from '../jsonrpc/types.js';
import type { RequestOptions } from '../peer/peer-options.js';
import {
  type CallToolResult,
  type CompleteRequestParams,
  type CompleteResult,
  type Cursor,
  type GetPromptResult,
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
  type ServerCapabilities,
  type Tool,
} from '../protocol/types.js';
import { requireFeature, requireSubscribe, type ServerFeature } from './capability-checks.js';
import { paginate } from './paginate.js';
import { checkedResult } from './server-result.js';
import type { SessionEra } from './session-era.js';
import { followToolCall, sendToolCall, type TaskSession } from './task-call.js';
import type { TaskRequestOptions } from './task-types.js';
import type { ToolCatalog } from './tool-catalog.js';

/**
 * What a client asks of the server it is connected to, the same in either era: its tools, resources, resource
 * templates and prompts (a page, or every item), calls and reads, subscriptions, completion, its log level, ping,
 * and any other request. Each first checks that the server declared the capability it needs and rejects with
 * CapabilityError, sending nothing, when it did not (`ping` and `request` check nothing). Each result is checked
 * against its method before the caller sees it, and one that is not one for it rejects with
 * InvalidServerResultError (`request`'s is not: its shape is the caller's to know). `ClientSession` is the one
 * implementation: it gives the era spoken, what the server announced and what `tools/list` told of the tools.
 */
export abstract class ServerCalls {
  /** What the server announced at the handshake. */
  abstract get serverCapabilities(): ServerCapabilities;
  /** What tools/list told of the tools: their output schemas and task support. */
  protected abstract readonly catalog: ToolCatalog;
  /** How tool calls run as tasks. */
  protected abstract readonly taskSession: TaskSession;
  /** The era spoken; throws before the handshake has completed. */
  protected abstract spoken(): SessionEra;

  // ---- tools ----

  /** One page of the server's tools. Remembers their output schemas for callTool. */
  async listTools(cursor?: Cursor, options?: RequestOptions): Promise<ListToolsResult> {
    this.require('tools', Method.ToolsList);
    const generation = this.catalog.begin();
    const result = checkedResult(
      Method.ToolsList,
      await this.spoken().request<ListToolsResult>(Method.ToolsList, cursorParams(cursor), options),
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
    const result = checkedResult(Method.ToolsCall, await followToolCall(this.taskSession, sent, options));
    // A tool with an outputSchema may leave `content` out: a caller reads it, as with the SDKs, as empty.
    result.content ??= [];
    if (known !== undefined) await this.catalog.check(name, known, result);
    return result;
  }

  // ---- resources ----

  /** One page of the server's resources. */
  listResources(cursor?: Cursor, options?: RequestOptions): Promise<ListResourcesResult> {
    return this.checked('resources', Method.ResourcesList, cursorParams(cursor), options);
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
    return this.checked('resources', Method.ResourcesTemplatesList, cursorParams(cursor), options);
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
    return this.checked('resources', Method.ResourcesRead, { uri }, options);
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
    return this.checked('prompts', Method.PromptsList, cursorParams(cursor), options);
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
    return this.checked(
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
    return this.checked('completions', Method.CompletionComplete, params, options);
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

  // ---- helpers ----

  protected require(feature: ServerFeature, method: string): void {
    requireFeature(this.serverCapabilities, feature, method);
  }

  /** `send`, for a request whose result is checked (`checkedResult`): it rejects with InvalidServerResultError. */
  private checked<R>(
    feature: ServerFeature,
    method: string,
    params: Params | undefined,
    options?: RequestOptions,
  ): Promise<R> {
    return this.send<R>(feature, method, params, options).then((result) => checkedResult(method, result));
  }

  /**
   * A request that needs `feature` (none for an extension's): rejects with CapabilityError, sending nothing,
   * without it, and before the handshake with the error saying so.
   */
  protected send<R>(
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
