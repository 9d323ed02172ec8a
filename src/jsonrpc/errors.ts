import type { JsonRpcErrorObject, JsonRpcErrorResponse, RequestId } from './types.js';

/** JSON-RPC 2.0 and MCP error codes. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** MCP: a request that timed out on the sender's side (never sent on the wire by mcpwire). */
  RequestTimeout: -32001,
  /** Local only, as in LSP: the caller cancelled its own request. */
  RequestCancelled: -32800,
  /** MCP: the connection closed before the answer came. */
  ConnectionClosed: -32000,
  /** MCP: resources/read for a URI the server does not know. */
  ResourceNotFound: -32002,
  /** MCP 2026-07-28: an HTTP header disagrees with the body, or a required one is missing (HTTP 400). */
  HeaderMismatch: -32020,
  /** MCP 2026-07-28: serving needs a client capability the request did not declare (`data.requiredCapabilities`). */
  MissingRequiredClientCapability: -32021,
  /** MCP 2026-07-28: the protocol version the request claims is not served (`data.supported`, `data.requested`). */
  UnsupportedProtocolVersion: -32022,
  /** MCP 2025-11-25: the request needs a URL-mode elicitation to complete first. */
  UrlElicitationRequired: -32042,
} as const;

/**
 * An error that travels as a JSON-RPC error object. Thrown by handlers to choose the code the
 * peer sees; received as the rejection of a request the peer answered with an error.
 */
export class McpError extends Error {
  override name = 'McpError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  static fromObject(error: JsonRpcErrorObject): McpError {
    return new McpError(error.code, error.message, error.data);
  }
}

export function errorResponse(id: RequestId | null, error: JsonRpcErrorObject): JsonRpcErrorResponse {
  return { jsonrpc: '2.0', id, error };
}

/**
 * The error object sent for a failure thrown by a handler: an McpError keeps its code; anything
 * else becomes -32603 with its message and never its stack.
 */
export function toErrorObject(err: unknown): JsonRpcErrorObject {
  if (err instanceof McpError) return err.toJSON();
  const message = err instanceof Error ? err.message : typeof err === 'string' ? err : 'Internal error';
  return { code: ErrorCode.InternalError, message: message || 'Internal error' };
}

/** A request whose id another request of the same sender still holds: JSON-RPC ids must be unique in flight. */
export function idInUse(id: RequestId): McpError {
  return new McpError(
    ErrorCode.InvalidRequest,
    `Invalid request: id ${JSON.stringify(id)} is already in use by a request in flight`,
  );
}
