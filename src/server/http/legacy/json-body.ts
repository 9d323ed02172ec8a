import type { HTTPExchange } from '../../../http/exchange.js';
import { writeJsonError } from '../../../http/json-error.js';
import { ErrorCode } from '../../../jsonrpc/errors.js';
import type { RequestId } from '../../../jsonrpc/types.js';
import type { Clock } from '../../../util/clock.js';
import { afterRelayed, type RelayStream } from './relay-order.js';

const JSON_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json' };

/**
 * JSON-response mode: the answers to one POST, gathered as they come and written as one JSON body (an array for a
 * batch), or 202 when every request was cancelled. The stream that owns it says when (`Stream.answer`).
 */
export class JsonBody {
  /** The POST's response, from `begin` until the body or an error is written. */
  private exchange: HTTPExchange | undefined;
  private headers: Readonly<Record<string, string>> | undefined;
  private parts: string[] | undefined;
  /**
   * The GET stream that carried messages sent while these requests ran: the body waits for them to leave
   * (relay-order.ts). Undefined in the common case, where none were.
   */
  relay: RelayStream | undefined;

  constructor(private readonly batch: boolean) {}

  /** The POST's response waits for the body. */
  get waiting(): boolean {
    return this.exchange !== undefined;
  }

  /** One serialized response. */
  add(data: string): void {
    if (this.parts === undefined) this.parts = [data];
    else this.parts.push(data);
  }

  /** The POST's messages were delivered: its response takes the body, with `headers` and the JSON type. */
  begin(exchange: HTTPExchange, headers: Readonly<Record<string, string>> | undefined): void {
    this.exchange = exchange;
    this.headers = headers === undefined ? JSON_HEADERS : { ...headers, ...JSON_HEADERS };
  }

  /** Calls `write` one turn after the messages relayed on `relay` have left (relay-order.ts says what that orders). */
  afterRelay(clock: Clock, write: () => void): void {
    const relay = this.relay!;
    this.relay = undefined;
    afterRelayed(relay, clock, () => setImmediate(write));
  }

  /** Writes the body; nothing when the response is not waiting (not begun, or already answered). */
  write(): void {
    const exchange = this.exchange;
    if (exchange === undefined) return;
    this.exchange = undefined;
    const parts = this.parts;
    if (parts === undefined) {
      // Every request was cancelled: nothing to answer.
      exchange.writeHead(202);
      exchange.end();
      return;
    }
    exchange.writeHead(200, this.headers);
    exchange.end(this.batch ? `[${parts.join(',')}]` : parts[0]);
  }

  /** The session closed before every answer was in: the POST gets `status` and a JSON-RPC error saying `message`. */
  fail(status: number, message: string, id: RequestId | undefined): void {
    const exchange = this.exchange;
    if (exchange === undefined) return;
    this.exchange = undefined;
    writeJsonError(exchange, status, message, { id: id ?? null, code: ErrorCode.ConnectionClosed });
  }
}
