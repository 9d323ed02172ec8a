import type * as Api from '@opentelemetry/api';
import type { Params, RequestId } from '../jsonrpc/types.js';
import { Attr, CANCELLED, type Described, describe, ending, spanName } from './attributes.js';
import { Instruments } from './open-telemetry-instruments.js';
import type {
  GaugeSource,
  RequestFacts,
  RequestObservation,
  SentObservation,
  Telemetry,
  TelemetryEvent,
} from './telemetry.js';

/** The `@opentelemetry/api` module: `import * as api from '@opentelemetry/api'`. */
export type OpenTelemetryApi = typeof Api;

/** What the OpenTelemetry sink is made of: the API, and a tracer and a meter (either may be missing). */
export interface OpenTelemetryParts {
  readonly api: OpenTelemetryApi;
  readonly tracer: Api.Tracer | undefined;
  readonly meter: Api.Meter | undefined;
  /** Default: the global propagator (an SDK registers W3C trace context and baggage). */
  readonly propagator: Api.TextMapPropagator | undefined;
  /** How a session id is named on spans (a hash); without it, `mcp.session.id` is left out. */
  readonly hashSession: ((sessionId: string) => string) | undefined;
}

type Attributes = Api.Attributes;

const META_GETTER: Api.TextMapGetter<Record<string, unknown>> = {
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
  keys: (carrier) => Object.keys(carrier),
};
const META_SETTER: Api.TextMapSetter<Record<string, unknown>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/**
 * Telemetry through OpenTelemetry: a SERVER span per request received and a CLIENT span per request sent
 * (`{mcp.method.name} {target}`), their context carried in `_meta` (`traceparent`, `tracestate`, `baggage`, as
 * SEP-414 and the conventions say); the conventions' duration histograms; and mcpwire's counters and gauges.
 * Made by `resolveTelemetry` (see resolve.ts), only when a tracer or a meter is there to take them.
 */
export class OpenTelemetrySink implements Telemetry {
  readonly api: OpenTelemetryApi;
  readonly tracer: Api.Tracer | undefined;
  readonly instruments: Instruments | undefined;
  private readonly propagator: Api.TextMapPropagator | undefined;
  private readonly hashSession: ((sessionId: string) => string) | undefined;
  private lastSessionId: string | undefined;
  private lastSessionHash: string | undefined;
  private readonly sources = new Set<GaugeSource>();

  constructor(parts: OpenTelemetryParts) {
    this.api = parts.api;
    this.tracer = parts.tracer;
    this.propagator = parts.propagator;
    this.hashSession = parts.hashSession;
    this.instruments = parts.meter === undefined ? undefined : new Instruments(parts.meter, this.sources);
  }

  serving(
    method: string,
    id: RequestId,
    params: Params | undefined,
    facts: RequestFacts | undefined,
  ): RequestObservation {
    const d = describe(method, params, facts?.protocolVersion);
    const api = this.api;
    const ambient = api.context.active();
    let parent = ambient;
    let links: Api.Link[] | undefined;
    const meta = params?._meta as Record<string, unknown> | undefined;
    if (meta !== undefined && typeof meta === 'object') {
      parent = this.extract(ambient, meta);
      // The conventions: the caller's context in _meta is the parent; what was current (an HTTP span) is a link.
      const around = api.trace.getSpan(ambient)?.spanContext();
      if (parent !== ambient && around !== undefined && api.isSpanContextValid(around))
        links = [{ context: around }];
    }
    const attributes = this.attributes(d, facts?.sessionId);
    attributes[Attr.RequestId] = String(id);
    return this.start(d, 'server', api.SpanKind.SERVER, parent, attributes, links);
  }

  sending(method: string, params: Params | undefined, facts: RequestFacts | undefined): SentObservation {
    const d = describe(method, params, facts?.protocolVersion);
    const parent = this.api.context.active();
    return this.start(d, 'client', this.api.SpanKind.CLIENT, parent, this.attributes(d, facts?.sessionId));
  }

  inputRound(method: string, params: Params | undefined, round: number): RequestObservation {
    const d = describe(method, params, undefined);
    const attributes = this.attributes(d, undefined);
    attributes[Attr.Round] = round;
    this.instruments?.clientInputRounds.add(1, { [Attr.MethodName]: method });
    return new Observed(
      this,
      d,
      'input',
      this.startSpan(
        `input_required ${spanName(d)}`,
        this.api.SpanKind.INTERNAL,
        this.api.context.active(),
        attributes,
      ),
    );
  }

  continuing<T>(params: Params | undefined, fn: () => T): T {
    const meta = params?._meta as Record<string, unknown> | undefined;
    if (meta === undefined || typeof meta !== 'object') return fn();
    const api = this.api;
    return api.context.with(this.extract(api.context.active(), meta), fn);
  }

  roundTrip<T>(operation: string, run: () => Promise<T>): Promise<T> {
    const api = this.api;
    const parent = api.context.active();
    const span = this.startSpan(`cluster ${operation}`, api.SpanKind.CLIENT, parent, {
      [Attr.ClusterOperation]: operation,
      [Attr.DbSystem]: 'redis',
    });
    const started = performance.now();
    const done = (err: unknown) => {
      const attributes: Attributes = { [Attr.ClusterOperation]: operation };
      if (err !== undefined) {
        const type = (err as Error)?.name || '_OTHER';
        attributes[Attr.ErrorType] = type;
        span?.setAttribute(Attr.ErrorType, type);
        span?.setStatus({ code: api.SpanStatusCode.ERROR, message: (err as Error)?.message });
      }
      span?.end();
      this.instruments?.roundTrips.record((performance.now() - started) / 1000, attributes);
    };
    const pending = span === undefined ? run() : api.context.with(api.trace.setSpan(parent, span), run);
    return pending.then(
      (value) => {
        done(undefined);
        return value;
      },
      (err: unknown) => {
        done(err ?? new Error('failed'));
        throw err;
      },
    );
  }

  event(event: TelemetryEvent): void {
    const instruments = this.instruments;
    switch (event.type) {
      case 'refused': {
        const attributes: Attributes = {
          [Attr.HttpStatusCode]: event.status,
          [Attr.ErrorType]: String(event.status),
        };
        if (event.code !== undefined) attributes[Attr.RpcStatusCode] = String(event.code);
        instruments?.refused.add(1, attributes);
        return;
      }
      case 'session.closed': {
        const attributes: Attributes = { [Attr.SessionEndReason]: event.reason };
        if (event.protocolVersion !== undefined) attributes[Attr.ProtocolVersion] = event.protocolVersion;
        instruments?.sessionDuration.record(event.durationMs / 1000, attributes);
        return;
      }
      case 'stream.resumed': {
        instruments?.replays.add(1, { [Attr.ReplayOutcome]: event.outcome });
        const api = this.api;
        const span = this.startSpan(
          'eventstore replay',
          api.SpanKind.INTERNAL,
          api.context.active(),
          {
            [Attr.ReplayOutcome]: event.outcome,
            [Attr.ReplayedEvents]: event.events,
            [Attr.SessionId]: this.sessionName(event.sessionId),
          },
          performance.timeOrigin + performance.now() - event.durationMs,
        );
        if (event.outcome !== 'replayed')
          span?.setStatus({ code: api.SpanStatusCode.ERROR, message: event.outcome });
        span?.end();
        return;
      }
      default:
        return;
    }
  }

  observe(source: GaugeSource): () => void {
    this.sources.add(source);
    return () => {
      this.sources.delete(source);
    };
  }

  /** @internal `params` with the context of `ctx` in `_meta`. */
  inject(ctx: Api.Context, params: Params | undefined): Params | undefined {
    const meta: Record<string, unknown> = { ...(params?._meta as Record<string, unknown> | undefined) };
    const propagator = this.propagator;
    if (propagator === undefined) this.api.propagation.inject(ctx, meta, META_SETTER);
    else propagator.inject(ctx, meta, META_SETTER);
    return { ...params, _meta: meta };
  }

  /** @internal A session as spans name it: a hash of its id, the same as a cluster's Redis keys. */
  sessionName(sessionId: string): string | undefined {
    if (this.hashSession === undefined) return undefined;
    if (sessionId !== this.lastSessionId) {
      this.lastSessionId = sessionId;
      this.lastSessionHash = this.hashSession(sessionId);
    }
    return this.lastSessionHash;
  }

  private extract(ambient: Api.Context, meta: Record<string, unknown>): Api.Context {
    const propagator = this.propagator;
    return propagator === undefined
      ? this.api.propagation.extract(ambient, meta, META_GETTER)
      : propagator.extract(ambient, meta, META_GETTER);
  }

  private attributes(d: Described, sessionId: string | undefined): Attributes {
    const attributes: Attributes = { [Attr.MethodName]: d.method, [Attr.Era]: d.era };
    if (d.targetKey !== undefined) attributes[d.targetKey] = d.target;
    if (d.targetKey === Attr.ToolName) attributes[Attr.OperationName] = 'execute_tool';
    if (d.uri !== undefined) attributes[Attr.ResourceUri] = d.uri;
    if (d.protocolVersion !== undefined) attributes[Attr.ProtocolVersion] = d.protocolVersion;
    if (sessionId !== undefined) {
      const name = this.sessionName(sessionId);
      if (name !== undefined) attributes[Attr.SessionId] = name;
    }
    return attributes;
  }

  private start(
    d: Described,
    side: 'server' | 'client',
    kind: Api.SpanKind,
    parent: Api.Context,
    attributes: Attributes,
    links?: Api.Link[],
  ): Observed {
    return new Observed(
      this,
      d,
      side,
      this.startSpan(spanName(d), kind, parent, attributes, undefined, links),
      parent,
    );
  }

  private startSpan(
    name: string,
    kind: Api.SpanKind,
    parent: Api.Context,
    attributes: Attributes,
    startTime?: number,
    links?: Api.Link[],
  ): Api.Span | undefined {
    return this.tracer?.startSpan(name, { kind, attributes, links, startTime }, parent);
  }
}

/** One request's span and timing. */
class Observed implements SentObservation {
  private readonly started = performance.now();
  private readonly context: Api.Context | undefined;
  private ended = false;
  private idSet = false;
  private version: string | undefined;

  constructor(
    private readonly sink: OpenTelemetrySink,
    private readonly d: Described,
    private readonly side: 'server' | 'client' | 'input',
    private readonly span: Api.Span | undefined,
    parent: Api.Context = sink.api.context.active(),
  ) {
    this.context = span === undefined ? undefined : sink.api.trace.setSpan(parent, span);
    this.version = d.protocolVersion;
  }

  run<T>(fn: () => T): T {
    return this.context === undefined ? fn() : this.sink.api.context.with(this.context, fn);
  }

  inject(params: Params | undefined): Params | undefined {
    return this.context === undefined ? params : this.sink.inject(this.context, params);
  }

  sentAs(id: RequestId): void {
    if (this.idSet) return;
    this.idSet = true;
    this.span?.setAttribute(Attr.RequestId, String(id));
  }

  end(result: Record<string, unknown> | undefined, error?: unknown, httpStatus?: number): void {
    if (this.ended) return;
    this.ended = true;
    const { sink, d, span } = this;
    const how = ending(result, error === CANCELLED ? CANCELLED : error);
    const api = sink.api;
    // initialize negotiates the version: known only from its result.
    if (this.version === undefined && typeof result?.protocolVersion === 'string') {
      this.version = result.protocolVersion;
      span?.setAttribute(Attr.ProtocolVersion, this.version);
    }
    if (span !== undefined) {
      span.setAttribute(Attr.Outcome, how.outcome);
      if (how.errorType !== undefined) {
        span.setAttribute(Attr.ErrorType, how.errorType);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: how.message });
      }
      if (how.code !== undefined) span.setAttribute(Attr.RpcStatusCode, String(how.code));
      if (httpStatus !== undefined) span.setAttribute(Attr.HttpStatusCode, httpStatus);
      span.end();
    }
    const instruments = sink.instruments;
    if (instruments === undefined || this.side === 'input') return;
    const attributes: Attributes = {
      [Attr.MethodName]: d.method,
      [Attr.Era]: d.era,
      [Attr.Outcome]: how.outcome,
    };
    // A name the client made up (an unknown tool is -32602) must not become a time series of its own.
    if (d.targetKey !== undefined && how.code === undefined) attributes[d.targetKey] = d.target;
    if (this.version !== undefined) attributes[Attr.ProtocolVersion] = this.version;
    if (how.errorType !== undefined) attributes[Attr.ErrorType] = how.errorType;
    if (how.code !== undefined) attributes[Attr.RpcStatusCode] = String(how.code);
    const seconds = (performance.now() - this.started) / 1000;
    if (this.side === 'server') {
      instruments.serverDuration.record(seconds, attributes);
      if (how.outcome === 'input_required')
        instruments.serverInputRounds.add(1, { [Attr.MethodName]: d.method });
    } else instruments.clientDuration.record(seconds, attributes);
  }
}
