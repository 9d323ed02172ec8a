import { errorResponse, McpError } from '../jsonrpc/errors.js';
import type { Parsed } from '../jsonrpc/parse.js';
import type { JsonRpcErrorResponse, RequestId } from '../jsonrpc/types.js';
import type { Receiver } from './connection.js';

/**
 * Hands one parsed payload to `receiver`: a message or a whole batch as read; invalid input is
 * answered through `answer` (the JSON-RPC error the peer sees) and reported as an McpError
 * carrying the same code. An invalid answer to a request `receiver` sent is not answered (a response
 * gets none): that request fails (`Receiver.invalidAnswer`).
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
      if (answeredInvalid(parsed, receiver) === undefined) answer(errorResponse(parsed.id, parsed.error));
      receiver.error(new McpError(parsed.error.code, parsed.error.message));
  }
}

/** Gives `receiver` an invalid answer to a request of its own (`Parsed.invalidAnswer`): that request's id, if it was one. */
export function answeredInvalid(
  parsed: Extract<Parsed, { kind: 'invalid' }>,
  receiver: Pick<Receiver, 'invalidAnswer'>,
): RequestId | undefined {
  const { id, invalidAnswer } = parsed;
  if (invalidAnswer === undefined || id === null) return undefined;
  return receiver.invalidAnswer?.(id, invalidAnswer) === true ? id : undefined;
}
