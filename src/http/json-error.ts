import { errorResponse } from '../jsonrpc/errors.js';
import { serialize } from '../jsonrpc/serialize.js';
import type { JsonRpcErrorObject, RequestId } from '../jsonrpc/types.js';
import type { HTTPExchange } from './exchange.js';

/** The JSON-RPC "server error" code the transports use for rejections that have no better code. */
export const HTTP_REJECTION_CODE = -32000;

const JSON_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json' };

export interface JsonErrorOptions {
  /** JSON-RPC error code; `HTTP_REJECTION_CODE` unless given. */
  code?: number;
  /** The id of the request this answers, when it could be read; null otherwise. */
  id?: RequestId | null;
  /** The error's `data`, when it has any. */
  data?: unknown;
  /** Extra response headers, e.g. `allow` for a 405. */
  headers?: Readonly<Record<string, string>>;
}

/**
 * Answers with `status` and a JSON-RPC error response whose message is `message`: the one way every
 * rejection reaches the client, so none is a bare status. If the head is already written (a stream
 * has begun), the status can no longer change and the response is just ended.
 */
export function writeJsonError(
  exchange: HTTPExchange,
  status: number,
  message: string,
  options?: JsonErrorOptions,
): void {
  if (exchange.closed) return;
  if (exchange.headWritten) {
    exchange.end();
    return;
  }
  const error: JsonRpcErrorObject = { code: options?.code ?? HTTP_REJECTION_CODE, message };
  if (options?.data !== undefined) error.data = options.data;
  const body = serialize(errorResponse(options?.id ?? null, error));
  exchange.writeHead(
    status,
    options?.headers === undefined ? JSON_HEADERS : { ...options.headers, ...JSON_HEADERS },
  );
  exchange.end(body);
}
