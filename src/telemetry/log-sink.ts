import type { Params, RequestId } from '../jsonrpc/types.js';
import { CANCELLED, type Described, describe, ending, spanName } from './attributes.js';
import type {
  GaugeSource,
  RequestFacts,
  RequestObservation,
  SentObservation,
  Telemetry,
  TelemetryEvent,
} from './telemetry.js';

/**
 * Where structured log lines go: pino's shape (`logger.info(fields, message)`), which `console` also accepts.
 * Each line's fields carry `event` (`request`, `refused`, `session.opened`, `session.closed`, `stream.resumed`,
 * `store.unavailable`, `store.available`) and low-cardinality facts; session ids appear only as hashes.
 */
export interface EventLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

const UNLOGGED: SentObservation = Object.freeze({
  run: <T>(fn: () => T): T => fn(),
  inject: (params: Params | undefined) => params,
  sentAs: () => {},
  end: () => {},
});

/**
 * Telemetry as log lines: each request served or sent with its outcome and duration, each refusal
 * with its reason, sessions opened and closed, streams resumed, the shared store lost and found again.
 */
export class LogSink implements Telemetry {
  constructor(
    readonly logger: EventLogger,
    private readonly hashSession: ((sessionId: string) => string) | undefined,
  ) {}

  serving(
    method: string,
    _id: RequestId,
    params: Params | undefined,
    facts: RequestFacts | undefined,
  ): RequestObservation {
    return new Logged(this, describe(method, params, facts?.protocolVersion), facts, 'served');
  }

  sending(method: string, params: Params | undefined, facts: RequestFacts | undefined): SentObservation {
    return new Logged(this, describe(method, params, facts?.protocolVersion), facts, 'sent');
  }

  inputRound(): RequestObservation {
    return UNLOGGED;
  }

  continuing<T>(_params: Params | undefined, fn: () => T): T {
    return fn();
  }

  roundTrip<T>(_operation: string, run: () => Promise<T>): Promise<T> {
    return run();
  }

  event(event: TelemetryEvent): void {
    const logger = this.logger;
    switch (event.type) {
      case 'refused':
        logger.warn(
          { event: 'refused', status: event.status, code: event.code },
          `refused with ${event.status}: ${event.message}`,
        );
        return;
      case 'session.opened':
        logger.info(
          {
            event: 'session.opened',
            session: this.name(event.sessionId),
            transport: event.transport,
            protocolVersion: event.protocolVersion,
          },
          `session opened (${event.transport}, ${event.protocolVersion ?? 'version not negotiated'})`,
        );
        return;
      case 'session.closed':
        logger.info(
          {
            event: 'session.closed',
            session: this.name(event.sessionId),
            transport: event.transport,
            reason: event.reason,
            durationMs: event.durationMs,
          },
          `session closed (${event.reason}) after ${Math.round(event.durationMs)} ms`,
        );
        return;
      case 'stream.resumed':
        logger.info(
          {
            event: 'stream.resumed',
            session: this.name(event.sessionId),
            outcome: event.outcome,
            events: event.events,
            durationMs: event.durationMs,
          },
          event.outcome === 'replayed'
            ? `stream resumed: ${event.events} events replayed in ${round(event.durationMs)} ms`
            : `stream not resumed: ${event.outcome}`,
        );
        return;
      case 'store.unavailable':
        logger.error({ event: 'store.unavailable' }, `shared store unavailable: ${event.message}`);
        return;
      case 'store.available':
        logger.info({ event: 'store.available' }, 'shared store available again');
        return;
    }
  }

  observe(_source: GaugeSource): () => void {
    return () => {};
  }

  /** @internal */
  name(sessionId: string | undefined): string | undefined {
    return sessionId === undefined || this.hashSession === undefined
      ? undefined
      : this.hashSession(sessionId);
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/** One request, logged when it ends. */
class Logged implements SentObservation {
  private readonly started = performance.now();
  private ended = false;

  constructor(
    private readonly sink: LogSink,
    private readonly d: Described,
    private readonly facts: RequestFacts | undefined,
    private readonly verb: 'served' | 'sent',
  ) {}

  run<T>(fn: () => T): T {
    return fn();
  }

  inject(params: Params | undefined): Params | undefined {
    return params;
  }

  sentAs(): void {}

  end(result: Record<string, unknown> | undefined, error?: unknown, httpStatus?: number): void {
    if (this.ended) return;
    this.ended = true;
    const how = ending(result, error === CANCELLED ? CANCELLED : error);
    const d = this.d;
    const durationMs = round(performance.now() - this.started);
    const fields: Record<string, unknown> = {
      event: 'request',
      method: d.method,
      outcome: how.outcome,
      durationMs,
      era: d.era,
    };
    if (d.target !== undefined) fields.target = d.target;
    if (d.uri !== undefined) fields.uri = d.uri;
    if (how.code !== undefined) fields.code = how.code;
    if (httpStatus !== undefined) fields.status = httpStatus;
    const session = this.sink.name(this.facts?.sessionId);
    if (session !== undefined) fields.session = session;
    const text = `${spanName(d)} ${this.verb}: ${how.outcome}${how.code === undefined ? '' : ` ${how.code}`} in ${durationMs} ms`;
    if (how.outcome === 'error')
      this.sink.logger.warn(fields, how.message === undefined ? text : `${text}: ${how.message}`);
    else this.sink.logger.info(fields, text);
  }
}
