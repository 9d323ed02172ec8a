// Loaded with `node --import` by tests into the `mcpwire serve` processes they start: registers the OpenTelemetry
// SDK as an application would, with an exporter that appends each span, as it ends, as one JSON line to the file
// MCPWIRE_TEST_SPANS_FILE, for the test to read back (see `readSpanFile` in otel.ts).
import { appendFileSync } from 'node:fs';
import { NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';

const file = process.env.MCPWIRE_TEST_SPANS_FILE;
if (file === undefined) throw new Error('otel-file-setup.mjs needs MCPWIRE_TEST_SPANS_FILE');

const exporter = {
  export(spans, done) {
    for (const span of spans) {
      const context = span.spanContext();
      const line = {
        pid: process.pid,
        name: span.name,
        kind: span.kind,
        traceId: context.traceId,
        spanId: context.spanId,
        parentSpanId: span.parentSpanContext?.spanId,
        links: span.links.map((link) => link.context.spanId),
        attributes: span.attributes,
        status: span.status,
      };
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    }
    done({ code: 0 });
  },
  shutdown: async () => {},
};

new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).register();
