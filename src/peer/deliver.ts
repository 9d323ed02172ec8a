import { errorResponse, McpError } from '../jsonrpc/errors.js';
import type { Parsed } from '../jsonrpc/parse.js';
import type { JsonRpcErrorResponse, RequestId } from '../jsonrpc/types.js';
import type { Receiver } from './connection.js';
import { InvalidResponseError } from './errors.js';

/**
 * Hands one parsed payload to `receiver`: a message or a whole batch as read; invalid input is
 * answered through `answer` (the JSON-RPC error the peer sees) and reported as an McpError
 * carrying the same code. An invalid answer to a request `receiver` asked is not answered (a response
 * gets none): that request fails with an InvalidResponseError.
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
    default: {
      const failed = failedAnswer(parsed, receiver);
      if (failed !== undefined) receiver.lost?.(failed.id, failed.error);
      else answer(errorResponse(parsed.id, parsed.error));
      receiver.error(new McpError(parsed.error.code, parsed.error.message));
    }
  }
}

/** An invalid answer to a request `receiver` asked (`Parsed.invalidAnswer`): that request, and what it fails with. */
export function failedAnswer(
  parsed: Extract<Parsed, { kind: 'invalid' }>,
  receiver: Pick<Receiver, 'asked'>,
): { id: RequestId; error: InvalidResponseError } | undefined {
  const { id, invalidAnswer } = parsed;
  if (invalidAnswer === undefined || id === null || receiver.asked?.(id) !== true) return undefined;
  return { id, error: new InvalidResponseError(invalidAnswer) };
}
