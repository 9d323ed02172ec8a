import { StoreUnavailableError } from '../../eventstore/store-unavailable-error.js';
import type { HTTPExchange } from '../../http/exchange.js';
import { HTTP_REJECTION_CODE, type JsonErrorOptions, writeJsonError } from '../../http/json-error.js';
import { ErrorCode } from '../../jsonrpc/errors.js';
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

/**
 * Answers a request whose serving threw `err` (reported already): 503 when the shared state cannot be reached
 * (`storeLost` hears why), the status of a refusal made further down, else 500 saying where the details went.
 */
export function answerFailure(exchange: HTTPExchange, err: unknown, storeLost: (why: string) => void): void {
  if (err instanceof StoreUnavailableError) {
    storeLost(err.message);
    writeJsonError(exchange, 503, `Service Unavailable: ${err.message}`, { code: ErrorCode.InternalError });
    return;
  }
  if (err instanceof HTTPRejectionError) {
    writeJsonError(exchange, err.status, err.message);
    return;
  }
  writeJsonError(
    exchange,
    500,
    `Internal error: ${(err as Error)?.message ?? String(err)}; the server reported the details to its error log`,
    { code: ErrorCode.InternalError },
  );
}
