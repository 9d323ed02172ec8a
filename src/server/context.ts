import type { Params, RequestId } from '../jsonrpc/types.js';
import type { MessageInfo } from '../peer/connection.js';
import type { RequestOptions } from '../peer/peer-options.js';
import { HandlerContext } from '../peer/request-context.js';
import type { InputResponses } from '../protocol/modern-types.js';
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  ListRootsResult,
  LoggingLevel,
} from '../protocol/types.js';
import type { ClientScope } from './client-scope.js';
import type { ServerSession } from './legacy/server-session.js';
import type { Server } from './server.js';

/**
 * What a server handler gets besides its arguments, in either era: the request's signal and progress, its
 * caller's scope, and calls back to the client made on behalf of this request. Everything sent through it is
 * related to the request, so HTTP transports carry it on that request's stream.
 *
 * Calls to the client (`elicit`, `createMessage`, `listRoots`) are one API for both eras: on a legacy session
 * they are server-to-client requests (rejecting with CapabilityError, sending nothing, when the client lacks
 * the capability); on a modern request the first one the handler awaits ends the round with `input_required`
 * and the handler runs again on the client's retry, its earlier calls answered from the sealed state in order
 * (so code before a call runs again on each round), and a call the request's capabilities do not allow is
 * answered -32021.
 *
 * Every answer is checked against the request it answers (an elicitation's content against its
 * `requestedSchema`, the shapes of sampling and roots results) before a handler sees it. On a legacy session
 * a wrong one rejects the call with InvalidClientAnswerError, which the handler may catch (and ask again);
 * on a modern request the retry carrying it fails with that error (-32602) before the handler runs again.
 */
export interface ServerContext {
  readonly server: Server;
  /** Who is calling: era, version, capabilities, client info, log level. */
  readonly scope: ClientScope;
  /** The legacy session the request came on; undefined for a modern request, which has none. */
  readonly session: ServerSession | undefined;
  readonly requestId: RequestId;
  readonly method: string;
  /** Aborted when the client cancels the request or goes away (a modern client: closes the response). */
  readonly signal: AbortSignal;
  /** The request's `_meta`, if it had one. */
  readonly meta: Record<string, unknown> | undefined;
  /** What the transport knows of the sender. */
  readonly transport: MessageInfo | undefined;
  /**
   * On the retry of an `inputRequired` round: the client's answers to that round's `inputRequests` by key, each
   * checked against its request (keys not asked are left out); undefined otherwise.
   */
  readonly inputResponses: InputResponses | undefined;
  /** On the retry of an `inputRequired` round: the `state` that round returned, verified; undefined otherwise. */
  readonly requestState: unknown;
  /** Sends a log message for this request when the client asked for `level` or below. Never rejects. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /** Reports progress when the requester asked for it (a `_meta.progressToken`); a no-op otherwise. */
  sendProgress(progress: number, total?: number, message?: string): Promise<void>;
  /** Sends a notification related to this request. */
  notify(method: string, params?: Params): Promise<void>;
  /** Sends a request to the client related to this one (modern era: only elicitation, sampling and roots). */
  request<R = Record<string, unknown>>(method: string, params?: Params, options?: RequestOptions): Promise<R>;
  /** Asks the client for its roots (needs the client's `roots` capability). */
  listRoots(options?: RequestOptions): Promise<ListRootsResult>;
  /** Asks the client to sample its LLM (needs `sampling`; `sampling.tools` for tools and toolChoice). */
  createMessage(params: CreateMessageRequestParams, options?: RequestOptions): Promise<CreateMessageResult>;
  /** Asks the user, through the client, for input (needs `elicitation`, with `url` for URL mode). */
  elicit(params: ElicitRequestParams, options?: RequestOptions): Promise<ElicitResult>;
  /**
   * For a tool with `deferTask`: goes on as a task from here, when the request may run as one (the client
   * declared tasks and the tool allows them). The client then gets the task at once, and the rest of the handler
   * runs in the background; resolves true. Resolves false when the request goes on as a plain one. A handler
   * that already runs as a task gets true.
   */
  startTask(): Promise<boolean>;
}

const NOT_A_TASK = Promise.resolve(false);

/** The context of a request on a legacy session: calls to the client are real server-to-client requests. */
export class LegacyContext extends HandlerContext<ServerSession> implements ServerContext {
  /** Set by the server when it runs the handler again after fulfilling its `inputRequired` itself. */
  inputResponses: InputResponses | undefined;
  requestState: unknown;

  get server(): Server {
    return this.session.server;
  }

  /** A legacy request that may run as a task was made one before its handler ran (no multi-round trips there). */
  startTask(): Promise<boolean> {
    return NOT_A_TASK;
  }

  get scope(): ClientScope {
    return this.session;
  }

  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    return this.session.log(level, data, logger, this.requestId);
  }

  listRoots(options?: RequestOptions): Promise<ListRootsResult> {
    return this.session.listRoots(this.related(options));
  }

  createMessage(params: CreateMessageRequestParams, options?: RequestOptions): Promise<CreateMessageResult> {
    return this.session.createMessage(params, this.related(options));
  }

  elicit(params: ElicitRequestParams, options?: RequestOptions): Promise<ElicitResult> {
    return this.session.elicit(params, this.related(options));
  }
}
