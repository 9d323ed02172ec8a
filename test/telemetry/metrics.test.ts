// Metrics read back with the values the test caused: requests by method and outcome on both sides (the
// conventions' duration histograms), sessions and streams open, refusals by status, input rounds, stream replays,
// the in-memory store's bytes and purges, session durations. The SDK is registered globally before the Server and
// Client are made, as an application would; server and client share this process and its reader.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DataPoint, Histogram } from '@opentelemetry/sdk-metrics';
import { createDemoServer } from '../../src/demo/demo-server.js';
import { MemoryEventStore } from '../../src/eventstore/memory-event-store.js';
import { connectUrl, StreamableHTTPHandler } from '../../src/index.js';
import {
  get,
  openSession,
  parseSse,
  post,
  type Served,
  serveOn,
  toolCall,
} from '../../src/test-support/mcp-http.js';
import { demoClient, type Recording, recordTelemetry } from '../../src/test-support/otel.js';
import { until } from '../../src/test-support/time-limit.js';

type Point = DataPoint<unknown>;

/** The points whose attributes include `attributes`. */
function matching(points: Point[], attributes: Record<string, unknown>): Point[] {
  return points.filter((p) => Object.entries(attributes).every(([k, v]) => p.attributes[k] === v));
}

/** The count of the one histogram point whose attributes include `attributes` (0 when there is none). */
function count(points: Point[], attributes: Record<string, unknown>): number {
  const found = matching(points, attributes);
  assert.ok(found.length <= 1, `one point at most for ${JSON.stringify(attributes)}, found ${found.length}`);
  return found.length === 0 ? 0 : (found[0].value as Histogram).count;
}

/** The sum of the counter or gauge points whose attributes include `attributes`. */
function total(points: Point[], attributes: Record<string, unknown> = {}): number {
  return matching(points, attributes).reduce((sum, p) => sum + (p.value as number), 0);
}

describe('metrics of mcpwire serving and calling, read back', { timeout: 60_000 }, () => {
  let recording: Recording;
  let handler: StreamableHTTPHandler;
  let served: Served;

  before(async () => {
    recording = recordTelemetry();
    // Small enough to purge: a few answers overflow it.
    handler = new StreamableHTTPHandler(createDemoServer(), {
      eventStore: new MemoryEventStore({ maxBytes: 2048 }),
    });
    served = await serveOn(handler.node());
  });

  after(async () => {
    await handler?.close({ deadlineMs: 0 });
    await served?.close();
    await recording?.stop();
  });

  test('requests by method, tool and outcome, on the server and on the client', async () => {
    const session = await connectUrl(demoClient('legacy'), served.url);
    for (let i = 0; i < 3; i++) await session.callTool('add', { a: i, b: 1 });
    await assert.rejects(session.callTool('no_such_tool', {}));
    await session.close();

    const server = await recording.points('mcp.server.operation.duration');
    const legacyAdd = { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'add', 'mcpwire.era': 'legacy' };
    assert.equal(count(server, { ...legacyAdd, 'mcpwire.outcome': 'complete' }), 3);
    assert.equal(count(server, { 'mcp.method.name': 'initialize', 'mcpwire.outcome': 'complete' }), 1);
    assert.equal(count(server, { 'mcp.method.name': 'tools/list' }), 1, 'callTool read the tool list once');
    // An unknown tool is an error, and its made-up name no series of its own.
    const unknown = matching(server, { 'mcp.method.name': 'tools/call', 'error.type': '-32602' });
    assert.equal(unknown.length, 1);
    assert.equal((unknown[0].value as Histogram).count, 1);
    assert.equal(unknown[0].attributes['gen_ai.tool.name'], undefined);
    assert.equal(unknown[0].attributes['rpc.response.status_code'], '-32602');

    const client = await recording.points('mcp.client.operation.duration');
    assert.equal(count(client, { ...legacyAdd, 'mcpwire.outcome': 'complete' }), 3);
    assert.equal(count(client, { 'mcp.method.name': 'tools/call', 'error.type': '-32602' }), 1);
  });

  test('a modern elicitation: two rounds on the server, one call and one input round on the client', async () => {
    const session = await connectUrl(demoClient('modern'), served.url);
    await session.callTool('elicit_name', {});
    await session.close();
    const server = await recording.points('mcp.server.operation.duration');
    const elicit = {
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'elicit_name',
      'mcpwire.era': 'modern',
    };
    assert.equal(count(server, { ...elicit, 'mcpwire.outcome': 'input_required' }), 1);
    assert.equal(count(server, { ...elicit, 'mcpwire.outcome': 'complete' }), 1);
    assert.equal(
      total(await recording.points('mcpwire.server.input_rounds'), { 'mcp.method.name': 'tools/call' }),
      1,
    );
    assert.equal(
      total(await recording.points('mcpwire.client.input_rounds'), { 'mcp.method.name': 'tools/call' }),
      1,
    );
    const client = await recording.points('mcp.client.operation.duration');
    assert.equal(count(client, { ...elicit, 'mcpwire.outcome': 'complete' }), 1, 'one call over both rounds');
  });

  test('sessions and streams open now; the session’s duration once it ends', async () => {
    const session = await connectUrl(demoClient('legacy'), served.url);
    const listening = await connectUrl(demoClient('modern'), served.url);
    const listen = await listening.listen({ toolsListChanged: true });
    await until(() => handler.listenStreamCount === 1, 5000, 'the listen stream');
    assert.equal(total(await recording.points('mcpwire.server.session.count')), 1);
    const streams = await recording.points('mcpwire.server.stream.count');
    assert.equal(total(streams, { 'mcpwire.stream.kind': 'listen' }), 1);
    await listen.close();
    await listening.close();
    const before = count(await recording.points('mcp.server.session.duration'), {});
    await session.close();
    await until(() => handler.sessionCount === 0, 5000, 'the session to end');
    assert.equal(total(await recording.points('mcpwire.server.session.count')), 0);
    assert.equal(
      total(await recording.points('mcpwire.server.stream.count'), { 'mcpwire.stream.kind': 'listen' }),
      0,
    );
    const durations = await recording.points('mcp.server.session.duration');
    assert.equal(count(durations, { 'mcpwire.session.end_reason': 'deleted' }), before + 1);
  });

  test('refusals by status, replays and the store’s bytes and purges', async () => {
    const refused = async (status: number) =>
      total(await recording.points('mcpwire.server.refused'), { 'http.response.status_code': status });
    const [notFound, forbidden] = [await refused(404), await refused(403)];
    const unknown = await post(served.url, toolCall(1, 'add', { a: 1, b: 2 }), {
      sessionId: 'no-such-session',
    });
    assert.equal(unknown.status, 404);
    await unknown.text();
    const foreign = await post(served.url, toolCall(1, 'add'), {
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(foreign.status, 403);
    await foreign.text();
    assert.equal(await refused(404), notFound + 1);
    assert.equal(await refused(403), forbidden + 1);

    // A stream resumed after its first event: the rest is replayed from the store.
    const sessionId = await openSession(served.url);
    const answer = await post(served.url, toolCall(2, 'add', { a: 2, b: 2 }), { sessionId });
    const events = parseSse(await answer.text());
    const replays = async () =>
      total(await recording.points('mcpwire.eventstore.replays'), { 'mcpwire.replay.outcome': 'replayed' });
    const before = await replays();
    const resumed = await get(served.url, sessionId, { lastEventId: events[0].id });
    assert.equal(resumed.status, 200);
    await resumed.text();
    assert.equal(await replays(), before + 1);

    assert.ok(total(await recording.points('mcpwire.eventstore.size')) > 0, 'the store holds bytes');
    for (let i = 0; i < 10; i++)
      await (
        await post(served.url, toolCall(10 + i, 'echo', { message: 'x'.repeat(200) }), { sessionId })
      ).text();
    assert.ok(
      total(await recording.points('mcpwire.eventstore.purged')) > 0,
      'the 2 KiB store purged events',
    );
  });
});
