import type { Params, RequestId } from '../jsonrpc/types.js';

/**
 * What the server, the client, the HTTP handlers and the cluster tell an operator, through one contract:
 * `Telemetry`. Its sinks are OpenTelemetry (spans and metrics, `open-telemetry.ts`) and a structured logger
 * (`log-sink.ts`); both at once through `bothSinks`. A component holds `Telemetry | undefined`, resolved once
 * when it is made (`resolve.ts`): undefined when nothing listens, so that the hot path pays one `undefined`
 * check per request and allocates nothing (optional calls, `telemetry?.serving(…)`, evaluate no argument).
 */

/** One request being served or sent, from the first byte read (or written) to its answer. */
export interface RequestObservation {
  /**
   * Runs `fn` with this request's span as the current one, so that what it starts (a handler's own spans, the
   * requests it makes) is a child of it. Callers attach their continuations inside `fn` too.
   */
  run<T>(fn: () => T): T;
  /**
   * The request ended: answered with `result`, or failed with `error` (an McpError, a JSON-RPC error object, or
   * anything thrown); `httpStatus` when one HTTP response carried only this answer. Once; later calls are ignored.
   */
  end(result: Record<string, unknown> | undefined, error?: unknown, httpStatus?: number): void;
}

/** A request this peer sends: its trace context travels in the request's `_meta`. */
export interface SentObservation extends RequestObservation {
  /** `params` with this request's trace context (`traceparent`, `tracestate`, `baggage`) added to `_meta`; a copy. */
  inject(params: Params | undefined): Params | undefined;
  /** The JSON-RPC id the request (its first round) went out with, once known. */
  sentAs(id: RequestId): void;
}

/** Where a request was served or sent: what the wire says besides the message. */
export interface RequestFacts {
  /** The protocol version the session negotiated (legacy era); a modern request carries its own in `_meta`. */
  readonly protocolVersion?: string;
  /** The session's id: sinks name it only by a hash, never as it is (a session id is a credential). */
  readonly sessionId?: string;
}

/**
 * Things an operator may want to know besides requests. Each is a counter or a log line; `message` is for
 * people, the other fields are low-cardinality.
 */
export type TelemetryEvent =
  /** A request refused before any handler ran (the guards, authorization, limits, unknown session…). */
  | {
      readonly type: 'refused';
      readonly status: number;
      /** The JSON-RPC error code of the refusal's body, when it has one. */
      readonly code: number | undefined;
      readonly message: string;
    }
  | {
      readonly type: 'session.opened';
      readonly transport: SessionTransport;
      readonly sessionId: string;
      readonly protocolVersion: string | undefined;
    }
  | {
      readonly type: 'session.closed';
      readonly transport: SessionTransport;
      readonly sessionId: string;
      readonly protocolVersion: string | undefined;
      /** Why it ended (`idle`, `deleted`, `evicted`, `shutdown`, `client`…). */
      readonly reason: string;
      /** How long it lived, in milliseconds. */
      readonly durationMs: number;
    }
  /**
   * A client resumed a stream with `Last-Event-ID`: the event store replayed `events` in `durationMs` (a span of
   * that length ending now), or could not (`outcome`).
   */
  | {
      readonly type: 'stream.resumed';
      readonly sessionId: string;
      readonly events: number;
      readonly outcome: 'replayed' | 'purged' | 'unknown' | 'failed';
      readonly durationMs: number;
    }
  /** The shared state (Redis) could not be reached: requests get 503 until `store.available`. */
  | { readonly type: 'store.unavailable'; readonly message: string }
  | { readonly type: 'store.available' };

export type SessionTransport = 'streamable-http' | 'sse';

/** What a handler exposes for the gauges a sink reads when it collects (nothing is counted per request). */
export interface GaugeSource {
  /** Sessions held now. */
  sessions(): number;
  /** SSE responses open now, by kind: `post` (a request's stream), `get` (a session's standalone stream), `listen`. */
  streams(): { post: number; get: number; listen: number };
  /** Bytes and purged events of the handler's event store, when it keeps count (the in-memory store does). */
  readonly store?: { readonly bytes: number; readonly purgedEvents: number };
}

/** The sink contract: every call returns at once and never throws into the caller. */
export interface Telemetry {
  /**
   * A request received, legacy or modern (its era is read from its `_meta`): a SERVER span whose parent is the
   * trace context in `_meta` (else the current context), timed until `end`.
   */
  serving(
    method: string,
    id: RequestId,
    params: Params | undefined,
    facts: RequestFacts | undefined,
  ): RequestObservation;
  /** A request sent: a CLIENT span, child of the current context, timed until `end`; `inject` puts it in `_meta`. */
  sending(method: string, params: Params | undefined, facts: RequestFacts | undefined): SentObservation;
  /**
   * A modern request's client fulfils the server's `inputRequests` (round `round`, from 1) before sending it
   * again: the span of that work, between the server spans of the two rounds.
   */
  inputRound(method: string, params: Params | undefined, round: number): RequestObservation;
  /** Runs `fn` in the trace context `params._meta` carries (no span of its own): work done for a request before it is served. */
  continuing<T>(params: Params | undefined, fn: () => T): T;
  /** One round trip to the shared state of a cluster (`operation`: `session.load`, `state.share`…), timed. */
  roundTrip<T>(operation: string, run: () => Promise<T>): Promise<T>;
  event(event: TelemetryEvent): void;
  /** Reads `source` at each collection until the returned function is called. */
  observe(source: GaugeSource): () => void;
}

/** How a request ended, for the `mcpwire.outcome` attribute and the log. */
export type Outcome = 'complete' | 'input_required' | 'tool_error' | 'error' | 'cancelled';
