import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  ListRootsResult,
  LoggingLevel,
} from '../protocol/types.js';
import { HandlerContext, type RequestOptions } from '../session/session.js';
import type { Server } from './server.js';
import type { ServerSession } from './server-session.js';

/**
 * What a server handler gets besides its arguments: the request's signal and progress, and calls
 * back to the client made on behalf of this request. Everything sent through it is related to the
 * request, so HTTP transports carry it on that request's stream, and the client's answers to
 * requests made here are abandoned when this request is cancelled. Client calls check the client's
 * declared capabilities first and reject with CapabilityError, sending nothing, when it lacks one.
 */
export class ServerContext extends HandlerContext<ServerSession> {
  /** The server definition this session belongs to. */
  get server(): Server {
    return this.session.server;
  }

  /** Sends a log message for this request when `level` passes the client's chosen level. Never rejects. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    return this.session.log(level, data, logger, this.requestId);
  }

  /** Asks the client for its roots (needs the client's `roots` capability). */
  listRoots(options?: RequestOptions): Promise<ListRootsResult> {
    return this.session.listRoots(this.related(options));
  }

  /** Asks the client to sample its LLM (needs `sampling`; `sampling.tools` for tools and toolChoice). */
  createMessage(params: CreateMessageRequestParams, options?: RequestOptions): Promise<CreateMessageResult> {
    return this.session.createMessage(params, this.related(options));
  }

  /** Asks the user, through the client, for input (needs `elicitation`, with `url` for URL mode). */
  elicit(params: ElicitRequestParams, options?: RequestOptions): Promise<ElicitResult> {
    return this.session.elicit(params, this.related(options));
  }
}
