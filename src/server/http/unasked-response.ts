import type { JsonRpcMessage, RequestId } from '../../jsonrpc/types.js';
import type { Receiver } from '../../peer/connection.js';

/**
 * The id of the first response among `messages` that answers no request `receiver` sent (spec 2025-11-25,
 * Streamable HTTP: a POSTed response the server cannot accept gets an HTTP error status). A late answer, to a
 * request that timed out or was cancelled, was asked, so it is accepted and dropped. `elsewhere` tells the
 * responses another process waits for: that process judges them. An error response with a null id is the
 * client saying it could not read something: it answers nothing and is accepted.
 */
export function unaskedResponse(
  messages: readonly JsonRpcMessage[],
  receiver: Receiver,
  elsewhere?: (message: JsonRpcMessage) => boolean,
): RequestId | undefined {
  if (receiver.asked === undefined) return undefined;
  for (const m of messages) {
    if ('method' in m || m.id === null || receiver.asked(m.id) || elsewhere?.(m)) continue;
    return m.id;
  }
  return undefined;
}

/** Why a POST that carries an unasked response is refused (with 400 and -32600 Invalid Request). */
export function unaskedMessage(id: RequestId): string {
  return (
    `Invalid request: the response with id ${JSON.stringify(id)} answers nothing; this session sent no request ` +
    'with that id. A client sends a response only to a request it received from the server'
  );
}
