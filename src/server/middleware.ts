import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { Params } from '../jsonrpc/types.js';
import { type CallToolResult, Method, type Result } from '../protocol/types.js';
import type { ServerContext } from './context.js';
import { InputRequired } from './input-required.js';
import type { MethodHandler, MethodTable } from './methods.js';
import type { Server } from './server.js';

/** What a request is answered with: its result, or (a round of a request that asks the client) `input_required`. */
export type MiddlewareAnswer = Result | InputRequired;

/** One request as middleware sees it (see `Server.use`). */
export interface MiddlewareCall {
  readonly method: string;
  /**
   * What it is about: the tool or prompt name (`tools/call`, `prompts/get`, a prompt's `completion/complete`), or
   * the resource URI (`resources/read`, `resources/subscribe`, `resources/unsubscribe`, a template's completion);
   * undefined for lists and the rest.
   */
  readonly target: string | undefined;
  readonly params: Params;
  /** The handler's context: the caller's scope (era, version, client info, capabilities), signal, session. */
  readonly ctx: ServerContext;
  /** Whom the transport authenticated (an OAuth token's subject), if anyone. */
  readonly principal: string | undefined;
}

/**
 * Runs around a request, in both eras and on every transport. `next()` runs what comes after it (the middleware
 * registered after it, then the handler) and resolves with its answer, which the middleware returns as it is or
 * in another's place; a middleware that returns without calling `next` answers in the handler's place, and one
 * that throws an McpError refuses the request with it. Anything else it throws is reported to `onerror` and
 * answered -32603. It runs again for each round of a request that asks the client for input.
 */
export type Middleware = (
  call: MiddlewareCall,
  next: () => Promise<MiddlewareAnswer>,
) => MiddlewareAnswer | Promise<MiddlewareAnswer>;

/** A tool call, as `beforeToolCall` and `afterToolCall` hooks see it. */
export interface ToolCall extends MiddlewareCall {
  readonly target: string;
  /** The tool's arguments, as the client sent them (checked against its schema after the hook). */
  readonly arguments: Record<string, unknown>;
}

/** What a request is about, by its method (see `MiddlewareCall.target`). */
function targetOf(method: string, params: Params): string | undefined {
  switch (method) {
    case Method.ToolsCall:
    case Method.PromptsGet:
      return typeof params.name === 'string' ? params.name : undefined;
    case Method.ResourcesRead:
    case Method.ResourcesSubscribe:
    case Method.ResourcesUnsubscribe:
      return typeof params.uri === 'string' ? params.uri : undefined;
    case Method.CompletionComplete: {
      const ref = params.ref as { name?: unknown; uri?: unknown } | undefined;
      const named = ref?.name ?? ref?.uri;
      return typeof named === 'string' ? named : undefined;
    }
    default:
      return undefined;
  }
}

/** `table` with every handler run inside `chain`, the first registered outermost. */
export function withMiddleware(table: MethodTable, chain: readonly Middleware[]): MethodTable {
  const wrapped: Record<string, MethodHandler | undefined> = Object.create(null);
  for (const method in table) {
    const handler = table[method];
    if (handler !== undefined) wrapped[method] = inChain(method, handler, chain);
  }
  return wrapped;
}

function inChain(method: string, handler: MethodHandler, chain: readonly Middleware[]): MethodHandler {
  return (server, params, ctx) => {
    const call: MiddlewareCall = {
      method,
      target: targetOf(method, params),
      params,
      ctx,
      principal: ctx.transport?.principal,
    };
    const step = async (i: number): Promise<MiddlewareAnswer> => {
      if (i === chain.length) return handler(server, params, ctx);
      /** What came out of `next`: passed on as it is, not taken for the middleware's own failure. */
      let passed: unknown;
      const next = () =>
        step(i + 1).catch((err) => {
          passed = err;
          throw err;
        });
      try {
        return await chain[i]!(call, next);
      } catch (err) {
        throw err === passed || err instanceof McpError ? err : failed(server, method, err);
      }
    };
    return step(0);
  };
}

function failed(server: Server, method: string, err: unknown): McpError {
  server.report(err);
  const message = err instanceof Error ? err.message : String(err);
  return new McpError(ErrorCode.InternalError, `A middleware of this server failed on ${method}: ${message}`);
}

/**
 * Middleware that runs `hook` before each tool call (`server.use(beforeToolCall(…))`): a result it returns answers
 * in the tool's place; an McpError it throws refuses the call.
 */
export function beforeToolCall(
  hook: (call: ToolCall) => CallToolResult | undefined | Promise<CallToolResult | undefined>,
): Middleware {
  return async (call, next) => {
    if (call.method !== Method.ToolsCall) return next();
    const answer = await hook(toolCall(call));
    return answer ?? next();
  };
}

/**
 * Middleware that runs `hook` after each tool call with the tool's result (not after a round that asks the client
 * for input): a result it returns replaces it.
 */
export function afterToolCall(
  hook: (
    call: ToolCall,
    result: CallToolResult,
  ) => CallToolResult | undefined | Promise<CallToolResult | undefined>,
): Middleware {
  return async (call, next) => {
    const answer = await next();
    if (call.method !== Method.ToolsCall || answer instanceof InputRequired) return answer;
    return (await hook(toolCall(call), answer as CallToolResult)) ?? answer;
  };
}

function toolCall(call: MiddlewareCall): ToolCall {
  const args = call.params.arguments;
  return {
    ...call,
    target: call.target ?? '',
    arguments: typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {},
  };
}
