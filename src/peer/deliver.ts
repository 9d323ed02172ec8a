import { errorResponse, McpError } from '../jsonrpc/errors.js';
import type { Parsed } from '../jsonrpc/parse.js';
import type { JsonRpcErrorResponse } from '../jsonrpc/types.js';
import type { Receiver } from './connection.js';

/**
 * Hands one parsed payload to `receiver`: a message or a whole batch as read; invalid input is
 * answered through `answer` (the JSON-RPC error the peer sees) and reported as an McpError
 * carrying the same code.
 */
export function deliver(
  parsed: Parsed,
  receiver: Receiver,
  answer: (reply: JsonRpcErrorResponse) => void,
): void {
  switch (parsed.kind) {
    case 'message':
      receiver.message(parsed.message);
      return;
    case 'batch':
      receiver.batch(parsed.messages);
      return;
    default:
      answer(errorResponse(parsed.id, parsed.error));
      receiver.error(new McpError(parsed.error.code, parsed.error.message));
  }
}
