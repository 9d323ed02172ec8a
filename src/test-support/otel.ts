import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as api from '@opentelemetry/api';
import { type DataPoint, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { Client, type EraPreference } from '../client/client.js';

/** A reader that collects when asked, and only then. */
class ManualReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** An OpenTelemetry SDK registered for one test file: its spans and metrics, read back in memory. */
export interface Recording {
  readonly tracerProvider: NodeTracerProvider;
  readonly meterProvider: MeterProvider;
  /** Every span ended so far. */
  spans(): ReadableSpan[];
  /** The data points of metric `name` at this collection (cumulative). */
  points(name: string): Promise<DataPoint<unknown>[]>;
  /** Forgets the spans ended so far. */
  reset(): void;
  /** Unregisters the providers. */
  stop(): Promise<void>;
}

/**
 * The OpenTelemetry SDK as an application registers it (`NodeTracerProvider.register()`: the AsyncLocalStorage
 * context manager, W3C trace context and baggage; a global meter provider), with in-memory exporters.
 * `global: false` makes providers for an explicit option, registering only the context manager and propagator.
 */
export function recordTelemetry(options: { global?: boolean } = {}): Recording {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new ManualReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  if (options.global === false) {
    // The context manager and propagators, without the provider: register, then take the provider back.
    tracerProvider.register();
    api.trace.disable();
  } else {
    tracerProvider.register();
    api.metrics.setGlobalMeterProvider(meterProvider);
  }
  return {
    tracerProvider,
    meterProvider,
    spans: () => exporter.getFinishedSpans(),
    points: async (name) => {
      const { resourceMetrics } = await reader.collect();
      const found = resourceMetrics.scopeMetrics
        .flatMap((s) => s.metrics)
        .filter((m) => m.descriptor.name === name);
      return found.flatMap((m) => m.dataPoints as DataPoint<unknown>[]);
    },
    reset: () => exporter.reset(),
    stop: async () => {
      api.trace.disable();
      api.metrics.disable();
      api.propagation.disable();
      api.context.disable();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

/** The one span named `name` of `kind`; throws, listing the spans, when there is not exactly one. */
export function theSpan(spans: readonly ReadableSpan[], name: string, kind: api.SpanKind): ReadableSpan {
  const found = spans.filter((s) => s.name === name && s.kind === kind);
  if (found.length !== 1) {
    throw new Error(
      `expected one ${api.SpanKind[kind]} span "${name}", found ${found.length} among: ${spans
        .map((s) => `${api.SpanKind[s.kind]} ${s.name}`)
        .join(', ')}`,
    );
  }
  return found[0];
}

/** The id of the span's parent, when it has one. */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

/** A span as `otel-file-setup.mjs` writes it in another process. */
export interface SpanLine {
  readonly pid: number;
  readonly name: string;
  readonly kind: api.SpanKind;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly links: string[];
  readonly attributes: Record<string, unknown>;
  readonly status: { code: number; message?: string };
}

const SETUP = fileURLToPath(new URL('./otel-file-setup.mjs', import.meta.url));

/** Where `mcpwire serve` processes started with `env` write their spans, and what they wrote so far. */
export interface SpanFile {
  /** For the processes: NODE_OPTIONS loading the SDK, and the file. */
  readonly env: NodeJS.ProcessEnv;
  read(): SpanLine[];
  remove(): void;
}

export function spanFile(): SpanFile {
  const dir = mkdtempSync(join(tmpdir(), 'mcpwire-spans-'));
  const file = join(dir, 'spans.jsonl');
  return {
    env: { NODE_OPTIONS: `--import ${SETUP}`, MCPWIRE_TEST_SPANS_FILE: file },
    read: () => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        return [];
      }
      // Whole lines only: a process may be appending one as it is read (a write is not atomic to a reader).
      return text
        .slice(0, text.lastIndexOf('\n') + 1)
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as SpanLine);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A client of the demo server in `era`, answering its elicitation (`elicit_name`) with the name Ada. */
export function demoClient(era: EraPreference): Client {
  return new Client(
    { name: 'traced-agent', version: '1.0.0' },
    {
      era,
      requestTimeoutMs: 20_000,
      // Over stdio, server/discover waits for the server to start: more than the default 5 s on a loaded machine.
      probeTimeoutMs: 20_000,
      elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) },
    },
  );
}
