import type { JsonRpcNotification, JsonRpcRequest, RequestId } from '../jsonrpc/types.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import type { MessageInfo } from './connection.js';
import type { HandlerContext, RunningRequest } from './request-context.js';

/**
 * What answers the messages a JSON-RPC peer receives. The peer does the protocol's part (validates params,
 * answers ping, refuses a duplicate id, runs requests concurrently and notifications in order, cancels,
 * times out, answers or reports); the responder decides only what a request returns and what a
 * notification does. Promise of the peer: `answer` is called once per request that passed validation, with
 * the context `context` made for it; `notified` in arrival order, a later one not before a returned promise
 * settles; neither after the connection closed.
 */
export interface Responder {
  /** Where this peer's requests, both ways, are observed; read per request, undefined when nothing listens. */
  readonly telemetry: Telemetry | undefined;
  /** The context one incoming request's handler gets. */
  context(request: JsonRpcRequest, running: RunningRequest, info: MessageInfo | undefined): HandlerContext;
  /** The result of one incoming request, or a throw (a rejection) that becomes its error answer. */
  answer(
    request: JsonRpcRequest,
    ctx: HandlerContext,
  ): Promise<Record<string, unknown>> | Record<string, unknown>;
  /** Acts on one incoming notification; a returned promise holds back the ones after it. */
  notified(notification: JsonRpcNotification, info: MessageInfo | undefined): void | Promise<void>;
  /**
   * The peer cancelled `id`, which is none of its requests running here: it may be one of ours that the peer
   * ends without an answer (a 2026-07-28 server ending a listen on stdio). Optional.
   */
  cancelled?(id: RequestId): void;
  /**
   * The transport lost the peer's session and reached a fresh one: initialize it anew; requests wait for
   * this. Without it (a server's session cannot restart itself), the peer closes.
   */
  reinitialize?(cause: Error): Promise<void>;
  /** The connection ended (before the peer's `onclose`): nothing more arrives. Optional. */
  ended?(): void;
}
