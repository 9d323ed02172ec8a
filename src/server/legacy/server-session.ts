import type { JsonRpcNotification, Params, RequestId } from '../../jsonrpc/types.js';
import { type Connection, SENT } from '../../peer/connection.js';
import { CapabilityError } from '../../peer/errors.js';
import { JsonRpcPeer } from '../../peer/jsonrpc-peer.js';
import type { RequestOptions } from '../../peer/peer-options.js';
import { isInputMethod } from '../../protocol/modern-types.js';
import {
  type ClientCapabilities,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type ElicitRequestParams,
  type ElicitResult,
  type Implementation,
  type ListRootsResult,
  type LoggingLevel,
  Method,
  type ServerCapabilities,
} from '../../protocol/types.js';
import { negotiateVersion } from '../../protocol/versions.js';
import type { Linked } from '../../util/chain.js';
import { DONE } from '../../util/done.js';
import { ANONYMOUS, type Caller } from '../access.js';
import { askRefused } from '../ask-check.js';
import { answerOf } from '../client-answer.js';
import { clientCallProblem } from '../client-capabilities.js';
import { atLeast, type ClientScope } from '../client-scope.js';
import type { Server } from '../server.js';
import { LegacyResponder } from './legacy-responder.js';

/** What a session already knows when it starts out initialized (see `ServerConnectOptions.preinitialized`). */
export interface PreinitializedState {
  protocolVersion: string;
  clientCapabilities?: ClientCapabilities;
  clientInfo?: Implementation;
}

/**
 * One client's connection to a Server. It holds only what differs per client (negotiated version,
 * the client's identity and capabilities, log level, subscriptions); tools, resources and prompts
 * are read from the shared Server, so no client's state can reach another.
 *
 * What its client sends is answered by a `LegacyResponder` (initialize first, then the Server's methods). Calls to the client (`listRoots`, `createMessage`, `elicit`) reject with CapabilityError,
 * sending nothing, when the client did not declare the capability they need.
 */
export class ServerSession extends JsonRpcPeer implements ClientScope, Linked<ServerSession> {
  /** The client's identity, from initialize. */
  clientInfo: Implementation | undefined;
  /** What the client declared it supports, from initialize. */
  clientCapabilities: ClientCapabilities | undefined;
  /** The capabilities this session's initialize answer announced. */
  serverCapabilities: ServerCapabilities | undefined;
  /** The least severe level the client wants (logging/setLevel); undefined sends every level. */
  logLevel: LoggingLevel | undefined;
  /** True once the client sent `notifications/initialized`. */
  initialized = false;
  /**
   * Who initialized it: its principal and that request's scopes, by which it hears of changes to entries guarded
   * by an `Access` (each request is still checked with its own token's scopes).
   */
  caller: Caller = ANONYMOUS;
  /** URIs the client subscribed to; created on the first subscription. */
  subscriptions: Set<string> | undefined;
  /** Called when the client sends `notifications/initialized`. */
  oninitialized: (() => void) | undefined;
  /** Called when the client sends `notifications/roots/list_changed`. */
  onrootschanged: (() => void) | undefined;
  /** @internal Its links in its server's `sessions`. */
  chainPrevious: ServerSession | undefined = undefined;
  /** @internal */
  chainNext: ServerSession | undefined = undefined;

  constructor(
    readonly server: Server,
    connection: Connection,
    preinitialized?: PreinitializedState,
  ) {
    const responder = new LegacyResponder(server);
    super(connection, responder, server.options);
    responder.session = this;
    if (preinitialized !== undefined) {
      this.protocolVersion = negotiateVersion(preinitialized.protocolVersion);
      this.clientCapabilities = preinitialized.clientCapabilities ?? {};
      this.clientInfo = preinitialized.clientInfo;
      this.serverCapabilities = server.capabilities;
      this.initialized = true;
    }
  }

  get era(): 'legacy' {
    return 'legacy';
  }

  /**
   * Sends a request to the client. The answer to `elicitation/create`, `sampling/createMessage` or `roots/list`
   * is checked against the request first (whichever way it was sent: `elicit`, a context's `request`, a task's):
   * a wrong one rejects with InvalidClientAnswerError. Such a request with params the client would refuse is not
   * sent: it rejects with -32602 naming the field.
   */
  override request<R = Record<string, unknown>>(
    method: string,
    params?: Params,
    options?: RequestOptions,
  ): Promise<R> {
    if (!isInputMethod(method)) return super.request<R>(method, params, options);
    const refused = askRefused(method, params);
    if (refused !== undefined) return Promise.reject(refused);
    return super
      .request<Record<string, unknown>>(method, params, options)
      .then((result) => answerOf(method, params, result, 'result') as R);
  }

  /** Asks the client for its roots (needs the client's `roots` capability). */
  listRoots(options?: RequestOptions): Promise<ListRootsResult> {
    return this.callClient(Method.RootsList, undefined, options);
  }

  /** Asks the client to sample its LLM (needs `sampling`; `sampling.tools` for tools and toolChoice). */
  createMessage(params: CreateMessageRequestParams, options?: RequestOptions): Promise<CreateMessageResult> {
    return this.callClient(Method.SamplingCreateMessage, params, options);
  }

  /** Asks the user, through the client, for input (needs `elicitation`, with `url` for URL mode). */
  elicit(params: ElicitRequestParams, options?: RequestOptions): Promise<ElicitResult> {
    return this.callClient(Method.ElicitationCreate, params, options);
  }

  /**
   * Sends `notifications/message` when `level` is at least the client's chosen level and the server
   * declares logging. `relatedRequestId` sends it with that request (what ServerContext.log does).
   * Never rejects: a failure to send goes to `onerror`.
   */
  log(level: LoggingLevel, data: unknown, logger?: string, relatedRequestId?: RequestId): Promise<void> {
    if (!this.logs(level)) return DONE;
    const params: Params = logger === undefined ? { level, data } : { level, logger, data };
    return this.notifySafely(Method.LoggingMessage, params, relatedRequestId);
  }

  /** Whether a log message at `level` goes to this client: the server declares logging, and it is at its level or above. */
  logs(level: LoggingLevel): boolean {
    const threshold = this.logLevel;
    return this.server.logging && (threshold === undefined || atLeast(level, threshold));
  }

  /** @internal Sends a notification unless closed; a failure goes to `onerror`, never to the caller. */
  notifySafely(method: string, params?: Params, relatedRequestId?: RequestId): Promise<void> {
    return this.isClosed ? DONE : this.safely(this.notify(method, params, relatedRequestId));
  }

  /**
   * @internal Sends a notification built once for many sessions (`Server.log`, list changes), unless closed;
   * a failure goes to `onerror`.
   */
  sendShared(message: JsonRpcNotification): void {
    if (!this.isClosed) this.safely(this.sendNotification(message));
  }

  /** `sent`, with its failure sent to `onerror`; no promise is made for one that left at once (`SENT`). */
  private safely(sent: Promise<void>): Promise<void> {
    return sent === SENT ? sent : sent.catch((err) => this.report(err));
  }

  private callClient<R>(
    method: string,
    params: object | undefined,
    options: RequestOptions | undefined,
  ): Promise<R> {
    // The typed params of each call are plain JSON objects.
    const message = params as Params | undefined;
    const problem = clientCallProblem(this.clientCapabilities, method, message);
    if (problem !== undefined) return Promise.reject(new CapabilityError(problem));
    return this.request<R>(method, message, options);
  }
}
