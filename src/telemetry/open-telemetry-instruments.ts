import type * as Api from '@opentelemetry/api';
import { Attr, DURATION_BUCKETS } from './attributes.js';
import type { GaugeSource } from './telemetry.js';

/**
 * The OpenTelemetry sink's metrics: one instrument per name, made once per sink, and the gauges (sessions,
 * streams, event-store bytes and purges) read at each collection from every source observed then.
 */
export class Instruments {
  readonly serverDuration: Api.Histogram;
  readonly clientDuration: Api.Histogram;
  readonly sessionDuration: Api.Histogram;
  readonly refused: Api.Counter;
  readonly serverInputRounds: Api.Counter;
  readonly clientInputRounds: Api.Counter;
  readonly replays: Api.Counter;
  readonly roundTrips: Api.Histogram;
  readonly sessions: Api.ObservableUpDownCounter;
  readonly streams: Api.ObservableUpDownCounter;
  readonly storeBytes: Api.ObservableUpDownCounter;
  readonly storePurged: Api.ObservableCounter;

  constructor(meter: Api.Meter, sources: ReadonlySet<GaugeSource>) {
    const histogram = (name: string, description: string, buckets: readonly number[] = DURATION_BUCKETS) =>
      meter.createHistogram(name, {
        unit: 's',
        description,
        advice: { explicitBucketBoundaries: buckets as number[] },
      });
    const counter = (name: string, unit: string, description: string) =>
      meter.createCounter(name, { unit, description });
    const gauge = (name: string, unit: string, description: string) =>
      meter.createObservableUpDownCounter(name, { unit, description });
    this.serverDuration = histogram(
      'mcp.server.operation.duration',
      'MCP request duration as observed on the receiver, from its arrival until its answer is sent.',
    );
    this.clientDuration = histogram(
      'mcp.client.operation.duration',
      'MCP request duration as observed on the sender, from its sending until its answer (all its rounds).',
    );
    this.sessionDuration = histogram(
      'mcp.server.session.duration',
      'The duration of an MCP session as observed on the server.',
    );
    this.roundTrips = histogram(
      'mcpwire.cluster.round_trip.duration',
      'Round trips to the Redis a cluster shares, by operation.',
      [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    );
    this.refused = counter(
      'mcpwire.server.refused',
      '{request}',
      'HTTP requests refused before any handler ran, by status and JSON-RPC code.',
    );
    this.serverInputRounds = counter(
      'mcpwire.server.input_rounds',
      '{round}',
      'Modern requests answered input_required: rounds the client must run before sending them again.',
    );
    this.clientInputRounds = counter(
      'mcpwire.client.input_rounds',
      '{round}',
      'Rounds of input_required the client fulfilled.',
    );
    this.replays = counter(
      'mcpwire.eventstore.replays',
      '{replay}',
      'Streams resumed with Last-Event-ID, by outcome.',
    );
    this.sessions = gauge('mcpwire.server.session.count', '{session}', 'Sessions held now.');
    this.streams = gauge(
      'mcpwire.server.stream.count',
      '{stream}',
      'SSE responses open now: post (a request), get (a standalone stream), listen.',
    );
    this.storeBytes = gauge(
      'mcpwire.eventstore.size',
      'By',
      'Bytes of events an in-memory event store holds now.',
    );
    this.storePurged = meter.createObservableCounter('mcpwire.eventstore.purged', {
      unit: '{event}',
      description: 'Events an in-memory event store dropped to stay within its bytes.',
    });
    this.sessions.addCallback((result) => {
      for (const source of sources) result.observe(source.sessions());
    });
    this.streams.addCallback((result) => {
      for (const source of sources) {
        const { post, get, listen } = source.streams();
        result.observe(post, { [Attr.StreamKind]: 'post' });
        result.observe(get, { [Attr.StreamKind]: 'get' });
        result.observe(listen, { [Attr.StreamKind]: 'listen' });
      }
    });
    this.storeBytes.addCallback((result) => {
      for (const source of sources) if (source.store) result.observe(source.store.bytes);
    });
    this.storePurged.addCallback((result) => {
      for (const source of sources) if (source.store) result.observe(source.store.purgedEvents);
    });
  }
}
