import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { Params } from '../jsonrpc/types.js';
import { MetaKey } from '../protocol/envelope.js';
import { Method } from '../protocol/types.js';
import type { Outcome } from './telemetry.js';

/**
 * Attribute names. Those of MCP, JSON-RPC and GenAI follow the OpenTelemetry semantic conventions for MCP,
 * `open-telemetry/semantic-conventions-genai` v0.1.0 (docs/gen-ai/mcp.md, status Development); `error.type`,
 * `http.response.status_code` and `rpc.response.status_code` are the general ones they name. `mcpwire.*` are ours,
 * where the conventions are silent (see docs/observability.md).
 */
export const Attr = {
  MethodName: 'mcp.method.name',
  RequestId: 'jsonrpc.request.id',
  ToolName: 'gen_ai.tool.name',
  PromptName: 'gen_ai.prompt.name',
  OperationName: 'gen_ai.operation.name',
  ResourceUri: 'mcp.resource.uri',
  ProtocolVersion: 'mcp.protocol.version',
  SessionId: 'mcp.session.id',
  ErrorType: 'error.type',
  RpcStatusCode: 'rpc.response.status_code',
  HttpStatusCode: 'http.response.status_code',
  Era: 'mcpwire.era',
  Outcome: 'mcpwire.outcome',
  Round: 'mcpwire.input_round',
  InputRequests: 'mcpwire.input_requests',
  StreamKind: 'mcpwire.stream.kind',
  ClusterOperation: 'mcpwire.cluster.operation',
  DbSystem: 'db.system.name',
  ReplayOutcome: 'mcpwire.replay.outcome',
  ReplayedEvents: 'mcpwire.replay.events',
  SessionEndReason: 'mcpwire.session.end_reason',
} as const;

/** What a request is about, read once from its method and params. */
export interface Described {
  readonly method: string;
  /** The tool or prompt name: the low-cardinality target of the span name. */
  readonly target: string | undefined;
  readonly targetKey: typeof Attr.ToolName | typeof Attr.PromptName | undefined;
  readonly uri: string | undefined;
  readonly era: 'legacy' | 'modern';
  readonly protocolVersion: string | undefined;
}

/** `{method} {target}`, or the method alone (the conventions' span name; URIs stay out of it). */
export function spanName(d: Described): string {
  return d.target === undefined ? d.method : `${d.method} ${d.target}`;
}

/** Reads the target, URI and era of a request; a modern request's `_meta` names its own version. */
export function describe(
  method: string,
  params: Params | undefined,
  sessionVersion: string | undefined,
): Described {
  let target: string | undefined;
  let targetKey: Described['targetKey'];
  let uri: string | undefined;
  if (method === Method.ToolsCall || method === Method.PromptsGet) {
    const name = params?.name;
    if (typeof name === 'string') {
      target = name;
      targetKey = method === Method.ToolsCall ? Attr.ToolName : Attr.PromptName;
    }
  } else if (typeof params?.uri === 'string') uri = params.uri;
  const meta = params?._meta as Record<string, unknown> | undefined;
  const claim = meta?.[MetaKey.ProtocolVersion];
  return {
    method,
    target,
    targetKey,
    uri,
    era: claim === undefined ? 'legacy' : 'modern',
    protocolVersion: typeof claim === 'string' ? claim : sessionVersion,
  };
}

/** How a request ended, classified once for every sink. */
export interface Ending {
  readonly outcome: Outcome;
  /** The JSON-RPC error code the request was answered (or failed) with. */
  readonly code: number | undefined;
  /** `error.type`: the code as a string, `tool_error`, `cancelled`, or the name of an error with no code. */
  readonly errorType: string | undefined;
  readonly message: string | undefined;
}

const COMPLETE: Ending = Object.freeze({
  outcome: 'complete',
  code: undefined,
  errorType: undefined,
  message: undefined,
});
const INPUT_REQUIRED: Ending = Object.freeze({
  outcome: 'input_required',
  code: undefined,
  errorType: undefined,
  message: undefined,
});
const TOOL_ERROR: Ending = Object.freeze({
  outcome: 'tool_error',
  code: undefined,
  errorType: 'tool_error',
  message: 'the tool answered isError: true',
});

/** Classifies an answer: a result (a tool's `isError`, a modern `input_required`), or an error of any kind. */
export function ending(result: Record<string, unknown> | undefined, error: unknown): Ending {
  if (error === undefined) {
    if (result?.isError === true) return TOOL_ERROR;
    return result?.resultType === 'input_required' ? INPUT_REQUIRED : COMPLETE;
  }
  const code = codeOf(error);
  const message = messageOf(error);
  if (code === ErrorCode.RequestCancelled)
    return { outcome: 'cancelled', code, errorType: 'cancelled', message };
  if (code !== undefined) return { outcome: 'error', code, errorType: String(code), message };
  const name = error instanceof Error ? error.name : undefined;
  return { outcome: 'error', code: undefined, errorType: name || '_OTHER', message };
}

function codeOf(error: unknown): number | undefined {
  if (error instanceof McpError) return error.code;
  if (error instanceof Error) return undefined;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

function messageOf(error: unknown): string | undefined {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : typeof error === 'string' ? error : undefined;
}

/** The error an observation of a request cancelled by either side ends with. */
export const CANCELLED = Object.freeze({ code: ErrorCode.RequestCancelled, message: 'cancelled' });

/** The conventions' histogram buckets for operation and session durations, in seconds. */
export const DURATION_BUCKETS: readonly number[] = [
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
];
