// One trace per call, from mcpwire's Client in this process to `mcpwire serve` in another: the serve process loads
// the OpenTelemetry SDK with `node --import` (as an operator would; no mcpwire option), writes its spans to a
// file, and its server spans must be children of this process's client spans, in both eras; what a tool calls
// back (elicitation) stays in the same trace: as input_required rounds (modern), as a server-to-client request
// (legacy).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as api from '@opentelemetry/api';
// As an application imports it: `mcpwire/client`, a Node entry, finds @opentelemetry/api by itself.
import { connectStdio, connectUrl } from '../../src/client/index.js';
import { CLI, type CliRun, killCliRuns, serveDemo } from '../../src/test-support/cli-run.js';
import {
  demoClient,
  parentOf,
  type Recording,
  recordTelemetry,
  type SpanFile,
  type SpanLine,
  spanFile,
  theSpan,
} from '../../src/test-support/otel.js';
import { until } from '../../src/test-support/time-limit.js';
import { sessionHash } from '../../src/util/session-hash.js';

const { CLIENT, SERVER, INTERNAL } = api.SpanKind;

/** Runs `fn` in a span of the application's own, as an agent would around its tool calls. */
function asAgent<T>(recording: Recording, fn: () => Promise<T>): Promise<T> {
  const tracer = recording.tracerProvider.getTracer('agent');
  return tracer.startActiveSpan('agent turn', async (span) => {
    try {
      return await fn();
    } finally {
      span.end();
    }
  });
}

/** The server spans of `traceId` named `name`, once `count` of them are written. */
async function serverSpans(
  file: SpanFile,
  traceId: string,
  name: string,
  count: number,
): Promise<SpanLine[]> {
  const found = () =>
    file.read().filter((s) => s.traceId === traceId && s.name === name && s.kind === SERVER);
  await until(() => found().length >= count, 10_000, `${count} server span(s) "${name}" of the trace`);
  return found();
}

describe('traces from mcpwire Client to mcpwire serve (SDK loaded with --import)', {
  timeout: 60_000,
}, () => {
  let recording: Recording;
  let file: SpanFile;
  let run: CliRun;
  let url: string;

  before(async () => {
    recording = recordTelemetry();
    file = spanFile();
    ({ run, url } = await serveDemo([], file.env));
  });

  after(async () => {
    run?.child.kill('SIGINT');
    await run?.exit(10_000).catch(() => {});
    killCliRuns();
    file?.remove();
    await recording?.stop();
  });

  for (const era of ['legacy', 'modern'] as const) {
    test(`${era}: tools/call add is one trace, client span → server span`, async () => {
      recording.reset();
      const session = await connectUrl(demoClient(era), url);
      try {
        assert.equal(session.era, era);
        const result = await asAgent(recording, () => session.callTool('add', { a: 1, b: 2 }));
        assert.deepEqual(result.structuredContent, { sum: 3 });
        const spans = recording.spans();
        const agent = theSpan(spans, 'agent turn', INTERNAL);
        const call = theSpan(spans, 'tools/call add', CLIENT);
        assert.equal(
          parentOf(call),
          agent.spanContext().spanId,
          'the client span is a child of the caller’s',
        );
        const traceId = call.spanContext().traceId;
        const [served] = await serverSpans(file, traceId, 'tools/call add', 1);
        assert.equal(
          served.parentSpanId,
          call.spanContext().spanId,
          'the server span is a child of the client span',
        );
        assert.notEqual(served.pid, process.pid);
        for (const span of [call.attributes, served.attributes]) {
          assert.equal(span['mcp.method.name'], 'tools/call');
          assert.equal(span['gen_ai.tool.name'], 'add');
          assert.equal(span['gen_ai.operation.name'], 'execute_tool');
          assert.equal(span['mcpwire.era'], era);
          assert.equal(span['mcpwire.outcome'], 'complete');
          assert.equal(span['mcp.protocol.version'], session.protocolVersion);
        }
        assert.equal(served.attributes['jsonrpc.request.id'], call.attributes['jsonrpc.request.id']);
        assert.equal(served.status.code, api.SpanStatusCode.UNSET);
        if (era === 'legacy') {
          // Named by the hash of the session id (as the cluster's Redis keys are), never by the id.
          const id = session.connection.sessionId!;
          assert.equal(served.attributes['mcp.session.id'], sessionHash(id));
          assert.ok(!JSON.stringify(file.read()).includes(id), 'the session id itself is written nowhere');
        } else {
          assert.equal(served.attributes['mcp.session.id'], undefined);
        }
      } finally {
        await session.close();
      }
    });

    test(`${era}: an error is on both spans, with its JSON-RPC code`, async () => {
      recording.reset();
      const session = await connectUrl(demoClient(era), url);
      try {
        await assert.rejects(asAgent(recording, () => session.callTool('no_such_tool', {})));
        const call = theSpan(recording.spans(), 'tools/call no_such_tool', CLIENT);
        const [served] = await serverSpans(file, call.spanContext().traceId, 'tools/call no_such_tool', 1);
        for (const span of [{ attributes: call.attributes, status: call.status }, served]) {
          assert.equal(span.attributes['error.type'], '-32602');
          assert.equal(span.attributes['rpc.response.status_code'], '-32602');
          assert.equal(span.attributes['mcpwire.outcome'], 'error');
          assert.equal(span.status.code, api.SpanStatusCode.ERROR);
          assert.match(span.status.message ?? '', /Unknown tool/);
        }
      } finally {
        await session.close();
      }
    });
  }

  test('modern: an elicitation is two rounds in one trace, the client’s input round between them', async () => {
    recording.reset();
    const session = await connectUrl(demoClient('modern'), url);
    try {
      const result = await asAgent(recording, () => session.callTool('elicit_name', {}));
      assert.match(JSON.stringify(result.content), /Ada/);
      const spans = recording.spans();
      const call = theSpan(spans, 'tools/call elicit_name', CLIENT);
      const round = theSpan(spans, 'input_required tools/call elicit_name', INTERNAL);
      assert.equal(parentOf(round), call.spanContext().spanId);
      assert.equal(round.attributes['mcpwire.input_round'], 1);
      const served = await serverSpans(file, call.spanContext().traceId, 'tools/call elicit_name', 2);
      assert.deepEqual(
        served.map((s) => s.attributes['mcpwire.outcome']),
        ['input_required', 'complete'],
      );
      for (const s of served) assert.equal(s.parentSpanId, call.spanContext().spanId);
    } finally {
      await session.close();
    }
  });

  test('legacy: an elicitation is a server-to-client request inside the server span', async () => {
    recording.reset();
    const session = await connectUrl(demoClient('legacy'), url);
    try {
      await asAgent(recording, () => session.callTool('elicit_name', {}));
      const spans = recording.spans();
      const call = theSpan(spans, 'tools/call elicit_name', CLIENT);
      const traceId = call.spanContext().traceId;
      const [served] = await serverSpans(file, traceId, 'tools/call elicit_name', 1);
      const asked = file.read().find((s) => s.traceId === traceId && s.name === 'elicitation/create');
      assert.ok(asked, 'the server’s request to the client is traced');
      assert.equal(asked.kind, CLIENT);
      assert.equal(asked.parentSpanId, served.spanId);
      // The client serves it: a SERVER span, child of the server's CLIENT span.
      const answered = theSpan(spans, 'elicitation/create', SERVER);
      assert.equal(parentOf(answered), asked.spanId);
      assert.equal(answered.spanContext().traceId, traceId);
    } finally {
      await session.close();
    }
  });
});

describe('traces from mcpwire Client to mcpwire serve --stdio', { timeout: 60_000 }, () => {
  let recording: Recording;
  let file: SpanFile;

  before(() => {
    recording = recordTelemetry();
    file = spanFile();
  });

  after(async () => {
    file?.remove();
    await recording?.stop();
  });

  for (const era of ['legacy', 'modern'] as const) {
    test(`${era}: the server span over stdio is a child of the client span`, async () => {
      recording.reset();
      const session = await connectStdio(demoClient(era), {
        command: process.execPath,
        args: [CLI, 'serve', '--stdio'],
        env: file.env as Record<string, string>,
      });
      try {
        assert.equal(session.era, era);
        await session.callTool('add', { a: 2, b: 3 });
      } finally {
        await session.close();
      }
      const call = theSpan(recording.spans(), 'tools/call add', CLIENT);
      const [served] = await serverSpans(file, call.spanContext().traceId, 'tools/call add', 1);
      assert.equal(served.parentSpanId, call.spanContext().spanId);
      assert.equal(served.attributes['mcpwire.era'], era);
    });
  }
});
