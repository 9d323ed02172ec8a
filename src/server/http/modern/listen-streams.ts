import type { HTTPExchange } from '../../../http/exchange.js';
import { formatSseEvent } from '../../../http/sse-event.js';
import { SSEWriter } from '../../../http/sse-writer.js';
import { ErrorCode } from '../../../jsonrpc/errors.js';
import { serialize } from '../../../jsonrpc/serialize.js';
import type { JsonRpcRequest } from '../../../jsonrpc/types.js';
import type { SubscriptionFilter } from '../../../protocol/modern-types.js';
import { honouredFilter } from '../../../protocol/subscription-filter.js';
import { CANCELLED } from '../../../telemetry/attributes.js';
import type { RequestObservation } from '../../../telemetry/telemetry.js';
import { exchangeCaller } from '../../access.js';
import { Subscription } from '../../subscription.js';
import type { ModernHost } from './modern-post.js';

const COMPLETE = Object.freeze({ resultType: 'complete' });

/** Default `maxListenStreams`: listen streams one handler holds at most. */
export const DEFAULT_MAX_LISTEN_STREAMS = 1000;
/** Default `maxListenStreamsPerPrincipal`. */
export const DEFAULT_MAX_LISTEN_STREAMS_PER_PRINCIPAL = 32;

/** Why a listen was refused: the status and message the client gets, as `refuse` sends them. */
export type ListenRefusal = (status: number, code: number, message: string, retryAfterS?: number) => void;

/** The per-principal bound counted across the processes of a cluster (src/cluster/listen-leases.ts). */
export interface ListenLeases {
  /**
   * Counts one more listen stream of `principal` (undefined: anonymous) unless it holds `max` already, over
   * every process; resolves with what uncounts it, or undefined at the bound. Rejects when the count cannot be
   * reached (Redis down).
   */
  acquire(principal: string | undefined, max: number): Promise<(() => void) | undefined>;
}

/**
 * The `subscriptions/listen` streams of one handler, bounded in number per process and per principal (the
 * stream that would pass a bound is refused with 503 or 429 and a JSON-RPC error, which `onerror` hears, so
 * the refusal shows in metrics), each an SSE stream whose reader may leave at most the writer's
 * `maxBufferedBytes` unread before it is dropped (the client listens again). `endAll` ends each with its result.
 */
export class ListenStreams {
  private readonly streams = new Set<Subscription>();
  private readonly byPrincipal = new Map<unknown, number>();
  /** Listens waiting for the cluster's count. */
  private pending = 0;

  constructor(
    private readonly host: ModernHost,
    readonly maxStreams: number,
    readonly maxPerPrincipal: number,
    /** With a cluster: the per-principal bound is counted there too (string principals, anonymous addresses). */
    private readonly leases?: ListenLeases,
  ) {}

  /** Listen streams open now. */
  get size(): number {
    return this.streams.size;
  }

  /** `observed`, when something listens, lasts as long as the stream: its result, or its reader leaving. */
  serve(
    exchange: HTTPExchange,
    request: JsonRpcRequest,
    refuse: ListenRefusal,
    observed: RequestObservation | undefined,
  ): void {
    const principal = exchange.principal;
    // Anonymous callers are told apart by their address: one of them must not take every other's slots.
    const who = principal ?? `\0${exchange.remoteAddress ?? ''}`;
    const holds =
      principal === undefined
        ? `the anonymous clients at ${exchange.remoteAddress} hold`
        : 'this client holds';
    if (this.streams.size + this.pending >= this.maxStreams) {
      refuse(
        503,
        ErrorCode.InternalError,
        `Service Unavailable: this server holds its maximum of ${this.maxStreams} listen streams; retry later`,
        5,
      );
      return;
    }
    const held = this.byPrincipal.get(who) ?? 0;
    if (held >= this.maxPerPrincipal) {
      refuse(
        429,
        ErrorCode.InternalError,
        `Too Many Requests: ${holds} the maximum of ${this.maxPerPrincipal} listen streams; close one first`,
      );
      return;
    }
    // Counted here at once, so that concurrent listens see each other while the cluster's count is asked.
    this.byPrincipal.set(who, held + 1);
    const leases = this.leases;
    if (leases === undefined || typeof who !== 'string') {
      this.open(exchange, request, who, undefined, observed);
      return;
    }
    this.pending++;
    leases.acquire(who, this.maxPerPrincipal).then(
      (release) => {
        this.pending--;
        if (release === undefined) {
          this.uncount(who);
          refuse(
            429,
            ErrorCode.InternalError,
            `Too Many Requests: ${holds} the maximum of ${this.maxPerPrincipal} listen streams across the servers of this service; close one first`,
          );
        } else if (exchange.closed) {
          this.uncount(who);
          release();
          observed?.end(undefined, CANCELLED);
        } else this.open(exchange, request, who, release, observed);
      },
      (err: Error) => {
        this.pending--;
        this.uncount(who);
        refuse(503, ErrorCode.InternalError, `Service Unavailable: ${err.message}`, 1);
      },
    );
  }

  /** Ends every stream gracefully, each with its listen result (shutdown). */
  endAll(): void {
    for (const subscription of this.streams) subscription.end();
  }

  /** `who`: what the stream is counted under (the principal, or an anonymous caller's address). */
  private open(
    exchange: HTTPExchange,
    request: JsonRpcRequest,
    who: unknown,
    release: (() => void) | undefined,
    observed: RequestObservation | undefined,
  ): void {
    const server = this.host.server;
    const filter = (request.params as { notifications: SubscriptionFilter }).notifications;
    const writer = new SSEWriter(exchange, this.host.writerOptions);
    const subscription = new Subscription(
      server,
      request.id,
      honouredFilter(filter, server.capabilities),
      {
        send: (message) => writer.frame(formatSseEvent({ data: serialize(message) })),
        end: () => {
          observed?.end(COMPLETE, undefined, 200);
          writer.close();
        },
      },
      exchangeCaller(exchange),
    );
    this.streams.add(subscription);
    exchange.onClose(() => {
      observed?.end(undefined, CANCELLED);
      subscription.cancel();
      if (!this.streams.delete(subscription)) return;
      this.uncount(who);
      release?.();
    });
    subscription.start();
  }

  private uncount(who: unknown): void {
    const left = this.byPrincipal.get(who)! - 1;
    if (left === 0) this.byPrincipal.delete(who);
    else this.byPrincipal.set(who, left);
  }
}
