import type * as Api from '@opentelemetry/api';
import type { Params, RequestId } from '../jsonrpc/types.js';
import type { EventLogger } from './log-sink.js';
import { LogSink } from './log-sink.js';
import { type OpenTelemetryApi, OpenTelemetrySink } from './open-telemetry.js';
import type {
  GaugeSource,
  RequestFacts,
  RequestObservation,
  SentObservation,
  Telemetry,
  TelemetryEvent,
} from './telemetry.js';

/**
 * Where a Server's or a Client's traces and metrics go. Default (the option left out): the providers registered
 * globally with `@opentelemetry/api` when the Server or Client is made, as instrumentation libraries do, so that
 * `node --import ./otel-setup.mjs app.mjs` traces with no option; nothing at all when none is registered or the
 * package is not installed. `false`: never.
 */
export interface OpenTelemetryOptions {
  /**
   * The `@opentelemetry/api` module (`import * as api from '@opentelemetry/api'`). On Node it is found by itself
   * (an optional peer dependency); in a browser, pass it.
   */
  api?: object;
  /** A `TracerProvider` to take spans instead of the global one. */
  tracerProvider?: object;
  /** A `MeterProvider` to take metrics instead of the global one. */
  meterProvider?: object;
  /** A `TextMapPropagator` for the trace context in `_meta`, instead of the global one. */
  propagator?: object;
}

/** The telemetry options a Server and a Client share. */
export interface TelemetryOptions {
  /** OpenTelemetry: see `OpenTelemetryOptions`; `false` turns it off. */
  telemetry?: OpenTelemetryOptions | false;
  /** Log lines for what happens (see `EventLogger`): pino, console, or anything with `info`, `warn`, `error`. */
  logger?: EventLogger;
}

const SCOPE = 'mcpwire';

/**
 * What a platform provides by itself: on Node, the API module when installed (typed loosely, so that no declaration
 * of mcpwire needs the optional package's types), and how to hash a session id.
 */
interface PlatformDefaults {
  api: () => object | undefined;
  hashSession: ((sessionId: string) => string) | undefined;
  version: () => string | undefined;
}

const NOTHING = (): undefined => undefined;
const platform: PlatformDefaults = { api: NOTHING, hashSession: undefined, version: NOTHING };

/** @internal Called once by node.ts, which Node entry points load: what Node provides. */
export function providePlatformDefaults(defaults: PlatformDefaults): void {
  Object.assign(platform, defaults);
}

/**
 * The telemetry of a Server or Client, decided once when it is made: undefined when nothing listens (no logger,
 * no provider given or registered), so that the code it observes pays one check per request and nothing more.
 */
export function resolveTelemetry(options: TelemetryOptions): Telemetry | undefined {
  const otel = options.telemetry === false ? undefined : openTelemetry(options.telemetry ?? {});
  const log = options.logger === undefined ? undefined : new LogSink(options.logger, platform.hashSession);
  if (otel !== undefined && log !== undefined) return new BothSinks(otel, log);
  return otel ?? log;
}

function openTelemetry(options: OpenTelemetryOptions): OpenTelemetrySink | undefined {
  const api = (options.api ?? platform.api()) as OpenTelemetryApi | undefined;
  if (api === undefined) {
    if (options.tracerProvider !== undefined || options.meterProvider !== undefined) {
      throw new Error(
        'telemetry: a tracerProvider or meterProvider needs @opentelemetry/api: install it, or pass it as `telemetry.api`',
      );
    }
    return undefined;
  }
  const version = platform.version();
  const tracerProvider =
    (options.tracerProvider as Api.TracerProvider | undefined) ??
    (tracingRegistered(api) ? api.trace.getTracerProvider() : undefined);
  const meterProvider =
    (options.meterProvider as Api.MeterProvider | undefined) ??
    (metricsRegistered(api) ? api.metrics.getMeterProvider() : undefined);
  if (tracerProvider === undefined && meterProvider === undefined) return undefined;
  return new OpenTelemetrySink({
    api,
    tracer: tracerProvider?.getTracer(SCOPE, version),
    meter: meterProvider?.getMeter(SCOPE, version),
    propagator: options.propagator as Api.TextMapPropagator | undefined,
    hashSession: platform.hashSession,
  });
}

/** True when an SDK registered a tracer provider: the global proxy then delegates to something but the no-op. */
function tracingRegistered(api: OpenTelemetryApi): boolean {
  const global = api.trace.getTracerProvider() as Api.TracerProvider & { getDelegate?(): Api.TracerProvider };
  if (typeof global.getDelegate !== 'function') return true;
  return global.getDelegate() !== new api.ProxyTracerProvider().getDelegate();
}

/** True when an SDK registered a meter provider: the no-op one hands out the one no-op meter. */
function metricsRegistered(api: OpenTelemetryApi): boolean {
  return api.metrics.getMeterProvider().getMeter(SCOPE) !== api.createNoopMeter();
}

/** Spans and metrics, and log lines, of the same requests. */
class BothSinks implements Telemetry {
  constructor(
    private readonly a: Telemetry,
    private readonly b: Telemetry,
  ) {}

  serving(
    method: string,
    id: RequestId,
    params: Params | undefined,
    facts: RequestFacts | undefined,
  ): RequestObservation {
    return new Both(this.a.serving(method, id, params, facts), this.b.serving(method, id, params, facts));
  }

  sending(method: string, params: Params | undefined, facts: RequestFacts | undefined): SentObservation {
    return new Both(this.a.sending(method, params, facts), this.b.sending(method, params, facts));
  }

  inputRound(method: string, params: Params | undefined, round: number): RequestObservation {
    return new Both(this.a.inputRound(method, params, round), this.b.inputRound(method, params, round));
  }

  continuing<T>(params: Params | undefined, fn: () => T): T {
    return this.a.continuing(params, () => this.b.continuing(params, fn));
  }

  roundTrip<T>(operation: string, run: () => Promise<T>): Promise<T> {
    return this.a.roundTrip(operation, () => this.b.roundTrip(operation, run));
  }

  event(event: TelemetryEvent): void {
    this.a.event(event);
    this.b.event(event);
  }

  observe(source: GaugeSource): () => void {
    const a = this.a.observe(source);
    const b = this.b.observe(source);
    return () => {
      a();
      b();
    };
  }
}

class Both implements SentObservation {
  constructor(
    private readonly a: RequestObservation,
    private readonly b: RequestObservation,
  ) {}

  run<T>(fn: () => T): T {
    return this.a.run(() => this.b.run(fn));
  }

  inject(params: Params | undefined): Params | undefined {
    return (this.b as SentObservation).inject((this.a as SentObservation).inject(params));
  }

  sentAs(id: RequestId): void {
    (this.a as SentObservation).sentAs(id);
    (this.b as SentObservation).sentAs(id);
  }

  end(result: Record<string, unknown> | undefined, error?: unknown, httpStatus?: number): void {
    this.a.end(result, error, httpStatus);
    this.b.end(result, error, httpStatus);
  }
}
