import { ErrorCode, McpError } from '../../jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../../jsonrpc/types.js';
import { readEnvelope } from '../../protocol/envelope.js';
import {
  checkMethodHeader,
  checkNameHeader,
  checkParamHeaders,
  checkVersionHeader,
  type HeaderLookup,
  type HeaderMismatch,
} from '../../protocol/mcp-headers.js';
import type { SubscriptionFilter } from '../../protocol/modern-types.js';
import { declaresTasks, TASKS_EXTENSION, TASKS_REQUIRED, TaskMethod } from '../../protocol/tasks.js';
import { Method, type ServerCapabilities } from '../../protocol/types.js';
import { validateParams } from '../../protocol/validate.js';
import { isModernVersion, MODERN_PROTOCOL_VERSIONS } from '../../protocol/versions.js';
import { ANONYMOUS, admits, type Caller } from '../access.js';
import { ModernScope } from '../client-scope.js';
import type { Server } from '../server.js';

/** A modern message let in: the scope its handler serves. */
export interface Admitted {
  readonly scope: ModernScope;
}

/** A modern message refused before any handler ran: the HTTP status and the error to answer with. */
export interface Refused {
  readonly status: number;
  readonly error: McpError;
}

/** The capability a modern method needs the server to have advertised; without it the method is not found. */
const NEEDS: Readonly<Record<string, (c: ServerCapabilities) => unknown>> = {
  [Method.ToolsList]: (c) => c.tools,
  [Method.ToolsCall]: (c) => c.tools,
  [Method.PromptsList]: (c) => c.prompts,
  [Method.PromptsGet]: (c) => c.prompts,
  [Method.ResourcesList]: (c) => c.resources,
  [Method.ResourcesTemplatesList]: (c) => c.resources,
  [Method.ResourcesRead]: (c) => c.resources,
  [Method.CompletionComplete]: (c) => c.completions,
  [TaskMethod.Get]: (c) => c.tasks,
  [TaskMethod.Update]: (c) => c.tasks,
  [TaskMethod.Cancel]: (c) => c.tasks,
  [Method.SubscriptionsListen]: (c) =>
    c.tools?.listChanged || c.prompts?.listChanged || c.resources?.listChanged || c.resources?.subscribe,
};

const refused = (status: number, code: number, message: string, data?: unknown): Refused => ({
  status,
  error: new McpError(code, message, data),
});

const mismatch = (m: HeaderMismatch): Refused =>
  refused(400, ErrorCode.HeaderMismatch, m.message, { mismatch: { header: m.header, body: m.body } });

/**
 * Checks a modern message in the order of spec 2026-07-28 (streamable-http §Server Validation): envelope
 * (-32602), version and method headers (-32020), served version (-32022), method known and advertised
 * (404, -32601; the methods removed in 2026 included), params (-32602), `Mcp-Name` (-32020), then the tool's
 * `Mcp-Param-*` headers (-32020; a tool hidden from `caller` has none, as an unknown one). `headers` is undefined
 * where a transport has none (stdio). Notifications
 * pass the envelope and header rungs only: the server answers them 202 and acts on none but cancellation.
 */
export function admitModern(
  server: Server,
  message: JsonRpcRequest | JsonRpcNotification,
  headers: HeaderLookup | undefined,
  caller: Caller = ANONYMOUS,
): Admitted | Refused {
  const params = message.params;
  const envelope = readEnvelope(params);
  if ('problem' in envelope) {
    return refused(400, ErrorCode.InvalidParams, envelope.message, {
      envelope: { key: envelope.key, problem: envelope.problem },
    });
  }
  const version = envelope.protocolVersion;
  const isRequest = 'id' in message;
  if (headers !== undefined) {
    const wrong =
      checkVersionHeader(version, headers) ?? checkMethodHeader(message.method, headers, isRequest);
    if (wrong !== undefined) return mismatch(wrong);
  }
  if (!isModernVersion(version)) {
    return refused(
      400,
      ErrorCode.UnsupportedProtocolVersion,
      `Unsupported protocol version: ${JSON.stringify(version.slice(0, 100))}; this server serves ${MODERN_PROTOCOL_VERSIONS.join(', ')} (and the 2025 revisions through initialize)`,
      { supported: MODERN_PROTOCOL_VERSIONS, requested: version },
    );
  }
  const scope = new ModernScope(
    version,
    envelope.clientCapabilities,
    envelope.clientInfo,
    envelope.logLevel,
    server.logging,
  );
  if (!isRequest) return { scope };
  const method = message.method;
  const needs = NEEDS[method];
  if (server.modernMethods[method] === undefined || (needs !== undefined && !needs(server.capabilities))) {
    return refused(404, ErrorCode.MethodNotFound, `Method not found: ${method}`);
  }
  const problem = validateParams(method, params);
  if (problem !== undefined) return refused(400, ErrorCode.InvalidParams, `Invalid params: ${problem}`);
  if (method === Method.SubscriptionsListen && server.tasks !== undefined) {
    const taskIds = (params!.notifications as SubscriptionFilter).taskIds;
    if (taskIds !== undefined && taskIds.length > 0 && !declaresTasks(envelope.clientCapabilities)) {
      return refused(
        400,
        ErrorCode.MissingRequiredClientCapability,
        `notifications.taskIds needs the "${TASKS_EXTENSION}" extension: declare it in this request's _meta clientCapabilities`,
        TASKS_REQUIRED,
      );
    }
  }
  if (headers !== undefined) {
    const wrong =
      checkNameHeader(method, params, headers) ??
      (method === Method.ToolsCall
        ? checkParamHeaders(params, headers, visibleTool(server, params!.name, caller)?.headers)
        : undefined);
    if (wrong !== undefined) return mismatch(wrong);
  }
  return { scope };
}

/** The tool `name` names, when `caller` may see it: a hidden one's annotations must not tell that it exists. */
function visibleTool(server: Server, name: unknown, caller: Caller) {
  const entry = server.toolEntries.find(name as string);
  return entry !== undefined && admits(entry.access, caller) ? entry : undefined;
}
