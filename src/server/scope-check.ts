import type { HTTPExchange } from '../http/exchange.js';
import type { HTTPIntake, ParsedBody } from '../http/intake.js';
import type { JsonRpcMessage, Params, RequestId } from '../jsonrpc/types.js';
import { Method } from '../protocol/types.js';
import { type Caller, exchangeCaller, ScopeError } from './access.js';
import { checkSubscribable } from './resources.js';
import type { Server } from './server.js';

/**
 * Answers a POST 403 `insufficient_scope` (spec 2025-11-25, authorization: scope challenge) when a request in it
 * names an entry its token lacks scopes for, before anything of it runs; true when it did. The client steps up
 * (authorizes again asking for them) and sends it again.
 */
export function refusedForScope(
  server: Server,
  intake: HTTPIntake,
  exchange: HTTPExchange,
  body: ParsedBody,
): boolean {
  if (!guardsEntries(server)) return false;
  const caller = exchangeCaller(exchange);
  const messages = body.kind === 'message' ? [body.message] : body.messages;
  for (const message of messages) {
    const short = scopeShortfallOf(server, message, caller);
    if (short !== undefined) {
      return intake.refuseScope(exchange, short.requiredScopes, short, (message as { id: RequestId }).id);
    }
  }
  return false;
}

/** True when some entry of the server is guarded by an `Access`. */
function guardsEntries(server: Server): boolean {
  return (
    server.toolEntries.guarded ||
    server.promptEntries.guarded ||
    server.resourceEntries.guarded ||
    server.templateEntries.guarded
  );
}

/**
 * Why `message` would be refused for want of OAuth scopes, found before anything runs, so that an HTTP
 * transport can answer 403 `insufficient_scope` while its status is still its own. The same lookups the method
 * handlers make: what they would refuse otherwise (unknown, hidden) is left to them.
 */
function scopeShortfallOf(server: Server, message: JsonRpcMessage, caller: Caller): ScopeError | undefined {
  if (!('method' in message) || !('id' in message)) return undefined;
  try {
    lookUp(server, message.method, message.params ?? {}, caller);
  } catch (err) {
    if (err instanceof ScopeError) return err;
  }
  return undefined;
}

function lookUp(server: Server, method: string, params: Params, caller: Caller): void {
  switch (method) {
    case Method.ToolsCall:
      if (typeof params.name === 'string') server.toolEntries.findFor(params.name, caller);
      return;
    case Method.PromptsGet:
      if (typeof params.name === 'string') server.promptEntries.findFor(params.name, caller);
      return;
    case Method.ResourcesRead:
    case Method.ResourcesSubscribe:
      if (typeof params.uri === 'string') {
        checkSubscribable(server.resourceEntries, server.templateEntries, params.uri, caller);
      }
      return;
    case Method.CompletionComplete: {
      const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
      if (ref?.type === 'ref/prompt' && typeof ref.name === 'string')
        server.promptEntries.findFor(ref.name, caller);
      if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
        server.templateEntries.findFor(ref.uri, caller) ?? server.resourceEntries.findFor(ref.uri, caller);
      }
      return;
    }
  }
}
