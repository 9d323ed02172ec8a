import type { HttpExchange } from '../../http/exchange.js';
import { type JsonErrorOptions, writeJsonError } from '../../http/json-error.js';
import { HttpRejectionError } from './errors.js';

/**
 * Refuses a request: the client gets `status` and a JSON-RPC error saying `message`, and `report`
 * (the handler's `onerror`) hears of it, so no refusal goes unseen on either side.
 */
export function reject(
  exchange: HttpExchange,
  status: number,
  message: string,
  report: (err: Error) => void,
  options?: JsonErrorOptions,
): void {
  writeJsonError(exchange, status, message, options);
  report(new HttpRejectionError(status, message));
}
