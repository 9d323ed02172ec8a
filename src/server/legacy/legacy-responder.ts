import { ErrorCode, McpError } from '../../jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../../jsonrpc/types.js';
import type { MessageInfo } from '../../peer/connection.js';
import type { HandlerContext, RunningRequest } from '../../peer/request-context.js';
import type { Responder } from '../../peer/responder.js';
import { type InitializeRequestParams, type InitializeResult, Method } from '../../protocol/types.js';
import { negotiateVersion } from '../../protocol/versions.js';
import type { Telemetry } from '../../telemetry/telemetry.js';
import { LegacyContext } from '../context.js';
import type { Server } from '../server.js';
import type { ServerSession } from './server-session.js';

/**
 * What answers a 2025 session's client: `initialize` first (every other request but ping is refused with
 * -32600 until then), then the Server's methods; `notifications/initialized` and roots changes become the
 * session's callbacks. It holds no state of its own: what it learns goes on the session.
 */
export class LegacyResponder implements Responder {
  /** @internal Set once, by the session that composes this responder. */
  session!: ServerSession;
  readonly telemetry: Telemetry | undefined;

  constructor(server: Server) {
    this.telemetry = server.telemetry;
  }

  context(request: JsonRpcRequest, running: RunningRequest, info: MessageInfo | undefined): LegacyContext {
    return new LegacyContext(this.session, this.session, request, running, info);
  }

  answer(
    request: JsonRpcRequest,
    ctx: HandlerContext,
  ): Promise<Record<string, unknown>> | Record<string, unknown> {
    if (request.method === Method.Initialize)
      return this.initialize(request.params as unknown as InitializeRequestParams, ctx.transport);
    if (this.session.protocolVersion === undefined) {
      throw new McpError(ErrorCode.InvalidRequest, 'Server not initialized: send "initialize" first');
    }
    return this.session.server.dispatch(request, ctx as LegacyContext);
  }

  notified(notification: JsonRpcNotification): void {
    const session = this.session;
    switch (notification.method) {
      case Method.Initialized:
        if (session.protocolVersion === undefined || session.initialized) return;
        session.initialized = true;
        session.oninitialized?.();
        return;
      case Method.RootsListChanged:
        session.onrootschanged?.();
        return;
    }
  }

  ended(): void {
    this.session.server.sessions.delete(this.session);
  }

  private initialize(params: InitializeRequestParams, info: MessageInfo | undefined): InitializeResult {
    const session = this.session;
    if (session.protocolVersion !== undefined) {
      throw new McpError(ErrorCode.InvalidRequest, 'Invalid request: the session is already initialized');
    }
    const server = session.server;
    const protocolVersion = negotiateVersion(params.protocolVersion);
    const principal = info?.principal;
    const capabilities = principal === undefined ? server.anonymousCapabilities : server.capabilities;
    // Copied: the info may hold the whole POST.
    if (info !== undefined) session.caller = { principal, scopes: info.scopes };
    session.protocolVersion = protocolVersion;
    session.clientCapabilities = params.capabilities;
    session.clientInfo = params.clientInfo;
    session.serverCapabilities = capabilities;
    const result: InitializeResult = { protocolVersion, capabilities, serverInfo: server.info };
    if (server.instructions !== undefined) result.instructions = server.instructions;
    return result;
  }
}
