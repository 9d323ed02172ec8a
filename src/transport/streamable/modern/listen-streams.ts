import type { HttpExchange } from '../../../http/exchange.js';
import { formatSseEvent } from '../../../http/sse-event.js';
import { SseWriter } from '../../../http/sse-writer.js';
import { ErrorCode } from '../../../jsonrpc/errors.js';
import type { JsonRpcRequest } from '../../../jsonrpc/types.js';
import type { SubscriptionFilter } from '../../../protocol/modern-types.js';
import { honouredFilter } from '../../../protocol/subscription-filter.js';
import { Subscription } from '../../../server/subscription.js';
import type { ModernHost } from './modern-post.js';

/** Default `maxListenStreams`: listen streams one handler holds at most. */
export const DEFAULT_MAX_LISTEN_STREAMS = 1000;
/** Default `maxListenStreamsPerPrincipal`. */
export const DEFAULT_MAX_LISTEN_STREAMS_PER_PRINCIPAL = 32;

/** Why a listen was refused: the status and message the client gets, as `refuse` sends them. */
export type ListenRefusal = (status: number, code: number, message: string, retryAfterS?: number) => void;

/**
 * The `subscriptions/listen` streams of one handler, bounded in number per process and per principal (the
 * stream that would pass a bound is refused with 503 or 429 and a JSON-RPC error, which `onerror` hears, so
 * the refusal shows in metrics), each an SSE stream whose reader may leave at most the writer's
 * `maxBufferedBytes` unread before it is dropped (the client listens again). `endAll` ends each with its result.
 */
export class ListenStreams {
  private readonly streams = new Set<Subscription>();
  private readonly byPrincipal = new Map<unknown, number>();

  constructor(
    private readonly host: ModernHost,
    readonly maxStreams: number,
    readonly maxPerPrincipal: number,
  ) {}

  /** Listen streams open now. */
  get size(): number {
    return this.streams.size;
  }

  serve(exchange: HttpExchange, request: JsonRpcRequest, refuse: ListenRefusal): void {
    const principal = exchange.principal;
    if (this.streams.size >= this.maxStreams) {
      refuse(
        503,
        ErrorCode.InternalError,
        `Service Unavailable: this server holds its maximum of ${this.maxStreams} listen streams; retry later`,
        5,
      );
      return;
    }
    const held = this.byPrincipal.get(principal) ?? 0;
    if (held >= this.maxPerPrincipal) {
      refuse(
        429,
        ErrorCode.InternalError,
        `Too Many Requests: this client holds its maximum of ${this.maxPerPrincipal} listen streams; close one first`,
      );
      return;
    }
    const server = this.host.server;
    const filter = (request.params as { notifications: SubscriptionFilter }).notifications;
    const writer = new SseWriter(exchange, this.host.writerOptions);
    const subscription = new Subscription(server, request.id, honouredFilter(filter, server.capabilities), {
      send: (message) => writer.frame(formatSseEvent({ data: JSON.stringify(message) })),
      end: () => writer.close(),
    });
    this.streams.add(subscription);
    this.byPrincipal.set(principal, held + 1);
    exchange.onClose(() => {
      subscription.cancel();
      if (!this.streams.delete(subscription)) return;
      const left = this.byPrincipal.get(principal)! - 1;
      if (left === 0) this.byPrincipal.delete(principal);
      else this.byPrincipal.set(principal, left);
    });
    subscription.start();
  }

  /** Ends every stream gracefully, each with its listen result (shutdown). */
  endAll(): void {
    for (const subscription of this.streams) subscription.end();
  }
}
