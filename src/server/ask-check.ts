import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { Params } from '../jsonrpc/types.js';
import { validateParams } from '../protocol/validate.js';

/**
 * The error for asking a client `method` (elicitation, sampling, roots) with params the client would refuse: an
 * elicitation without a message, a sampling request without `maxTokens`. The handler's author reads it where the
 * ask was made, the same in both eras, rather than a 2025 client's -32602 or a 2026 client failing the call.
 * Undefined when the params are what the method takes.
 */
export function askRefused(method: string, params: Params | undefined): McpError | undefined {
  const problem = validateParams(method, params);
  if (problem === undefined) return undefined;
  return new McpError(ErrorCode.InvalidParams, `${method} was not sent to the client: ${problem}`);
}
