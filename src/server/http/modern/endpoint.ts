import type { HTTPExchange } from '../../../http/exchange.js';
import type { Refuse } from '../../../http/intake.js';
import type { JsonErrorOptions } from '../../../http/json-error.js';
import { ErrorCode } from '../../../jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../../../jsonrpc/types.js';
import { tooManyMcpHeaders } from '../../../protocol/mcp-headers.js';
import { Method } from '../../../protocol/types.js';
import type { RequestObservation } from '../../../telemetry/telemetry.js';
import { exchangeCaller } from '../../access.js';
import { admitModern } from '../../modern/admission.js';
import { type ListenLeases, ListenStreams } from './listen-streams.js';
import { type ModernHost, ModernPost } from './modern-post.js';

const NO_HEADERS: Readonly<Record<string, string>> = {};

/**
 * The modern era of one Streamable HTTP endpoint: each POST that claims 2026-07-28 is checked in the spec's
 * order (`admitModern`, headers included; first, its `Mcp-*` headers are bounded: 64, 16 KiB, else 431), then
 * answered on its own: a notification with 202, a
 * `subscriptions/listen` with a listen stream, any other request with its result. No session is read,
 * minted or touched, whatever `Mcp-Session-Id` says.
 */
export class ModernEndpoint {
  readonly listens: ListenStreams;

  constructor(
    private readonly host: ModernHost,
    private readonly refuse: Refuse,
    maxListenStreams: number,
    maxListenStreamsPerPrincipal: number,
    leases: ListenLeases | undefined,
  ) {
    this.listens = new ListenStreams(host, maxListenStreams, maxListenStreamsPerPrincipal, leases);
  }

  serve(exchange: HTTPExchange, message: JsonRpcRequest | JsonRpcNotification): void {
    const id = 'id' in message ? message.id : null;
    const observed =
      id === null
        ? undefined
        : this.host.server.telemetry?.serving(message.method, id, message.params, undefined);
    const overLimit = tooManyMcpHeaders(exchange.rawHeaders);
    if (overLimit !== undefined) {
      this.refused(exchange, observed, 431, `Request Header Fields Too Large: ${overLimit}`, {
        code: ErrorCode.InvalidRequest,
        id,
      });
      return;
    }
    // An unauthenticated request is the anonymous caller: nothing to build.
    const caller = exchange.principal === undefined ? undefined : exchangeCaller(exchange);
    const admitted = admitModern(this.host.server, message, (name) => exchange.header(name), caller);
    if ('error' in admitted) {
      const { error } = admitted;
      this.refused(exchange, observed, admitted.status, error.message, {
        code: error.code,
        id,
        data: error.data,
      });
      return;
    }
    if (id === null) {
      // Cancellation over HTTP is closing the response; a posted notification changes nothing here.
      exchange.writeHead(202, NO_HEADERS);
      exchange.end();
      return;
    }
    const request = message as JsonRpcRequest;
    if (request.method === Method.SubscriptionsListen) {
      this.listens.serve(
        exchange,
        request,
        (status, code, text, retryAfterS) =>
          this.refused(exchange, observed, status, text, {
            code,
            id,
            headers: retryAfterS === undefined ? undefined : { 'retry-after': String(retryAfterS) },
          }),
        observed,
      );
      return;
    }
    new ModernPost(this.host, exchange, request, admitted.scope, caller?.principal, observed).serve();
  }

  /** A request refused before it ran: its observation ends with the refusal. */
  private refused(
    exchange: HTTPExchange,
    observed: RequestObservation | undefined,
    status: number,
    message: string,
    options: JsonErrorOptions,
  ): void {
    observed?.end(undefined, { code: options.code, message }, status);
    this.refuse(exchange, status, message, options);
  }
}
