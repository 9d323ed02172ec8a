import type { HTTPExchange } from '../../http/exchange.js';
import { type JsonErrorOptions, writeJsonError } from '../../http/json-error.js';
import { HTTPRejectionError } from './errors.js';

/**
 * Refuses a request: the client gets `status` and a JSON-RPC error saying `message`, and `report`
 * (the handler's `onerror`) hears of it, so no refusal goes unseen on either side.
 */
export function reject(
  exchange: HTTPExchange,
  status: number,
  message: string,
  report: (err: Error) => void,
  options?: JsonErrorOptions,
): void {
  writeJsonError(exchange, status, message, options);
  report(new HTTPRejectionError(status, message));
}
