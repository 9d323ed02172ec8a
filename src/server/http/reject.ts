import type { HTTPExchange } from '../../http/exchange.js';
import { HTTP_REJECTION_CODE, type JsonErrorOptions, writeJsonError } from '../../http/json-error.js';
import type { Telemetry } from '../../telemetry/telemetry.js';
import { HTTPRejectionError } from './errors.js';

/** Who hears of a refusal: `onerror`, and the telemetry of the server when something listens. */
export interface RefusalWitness {
  report(err: Error): void;
  readonly telemetry: Telemetry | undefined;
}

/**
 * Refuses a request: the client gets `status` and a JSON-RPC error saying `message`, and `witness` (the handler's
 * `onerror`, and its telemetry) hears of it, so no refusal goes unseen on either side.
 */
export function reject(
  exchange: HTTPExchange,
  status: number,
  message: string,
  witness: RefusalWitness,
  options?: JsonErrorOptions,
): void {
  writeJsonError(exchange, status, message, options);
  witness.report(new HTTPRejectionError(status, message));
  witness.telemetry?.event({ type: 'refused', status, code: options?.code ?? HTTP_REJECTION_CODE, message });
}
