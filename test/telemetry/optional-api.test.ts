// When telemetry is on, and when it costs nothing: `@opentelemetry/api` is an optional peer dependency. Without it
// installed, `import 'mcpwire'` works and nothing is observed; with it but no provider registered, nothing is
// observed either (the components hold no telemetry at all: one `undefined` check per request); a registered
// SDK, an explicit provider, or a logger turns it on; `telemetry: false` keeps it off.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as api from '@opentelemetry/api';
import { Client } from '../../src/client/client.js';
import { connectUrl } from '../../src/client/index.js';
import { StreamableHTTPHandler } from '../../src/server/http/streamable-http-handler.js';
import { Server } from '../../src/server/server.js';
import { serveOn } from '../../src/test-support/mcp-http.js';
import { recordTelemetry, theSpan } from '../../src/test-support/otel.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const INFO = { name: 't', version: '1' };
const quiet = { info() {}, warn() {}, error() {} };

describe('whether telemetry is on', () => {
  test('with the API installed: off until a provider is registered or given; a logger alone turns it on', async () => {
    assert.equal(new Server(INFO).telemetry, undefined, 'nothing registered: nothing observed');
    assert.equal(new Client(INFO).telemetry, undefined);
    assert.ok(new Server(INFO, { logger: quiet }).telemetry, 'a logger is enough');

    const recording = recordTelemetry();
    try {
      assert.ok(new Server(INFO).telemetry, 'a registered SDK is found');
      assert.ok(new Client(INFO).telemetry);
      assert.equal(new Server(INFO, { telemetry: false }).telemetry, undefined);
    } finally {
      await recording.stop();
    }
  });

  test('an explicit tracer provider takes the spans, with none registered globally', async () => {
    const recording = recordTelemetry({ global: false });
    try {
      assert.equal(new Server(INFO).telemetry, undefined, 'the global provider is not set');
      const telemetry = { tracerProvider: recording.tracerProvider };
      const server = new Server(INFO, { telemetry });
      server.tool({ name: 'ping_back', inputSchema: { type: 'object' } }, () => ({ content: [] }));
      const handler = new StreamableHTTPHandler(server);
      const served = await serveOn(handler.node());
      try {
        const session = await connectUrl(new Client(INFO, { era: 'legacy', telemetry }), served.url);
        await session.callTool('ping_back', {});
        await session.close();
        const spans = recording.spans();
        const call = theSpan(spans, 'tools/call ping_back', api.SpanKind.CLIENT);
        const done = theSpan(spans, 'tools/call ping_back', api.SpanKind.SERVER);
        assert.equal(done.parentSpanContext?.spanId, call.spanContext().spanId);
      } finally {
        await handler.close({ deadlineMs: 0 });
        await served.close();
      }
    } finally {
      await recording.stop();
    }
  });

  test('without the API installed: mcpwire imports, serves, and observes nothing', {
    timeout: 60_000,
  }, () => {
    // A copy of the build beside a node_modules that has everything but @opentelemetry.
    const dir = mkdtempSync(join(tmpdir(), 'mcpwire-no-otel-'));
    try {
      cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
      cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
      const modules = join(dir, 'node_modules');
      mkdirSync(modules);
      for (const name of readdirSync(join(ROOT, 'node_modules'))) {
        if (name !== '@opentelemetry') symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
      }
      const script = join(dir, 'probe.mjs');
      writeFileSync(
        script,
        `import { Server, Client, StreamableHTTPHandler } from './dist/index.js';
const server = new Server({ name: 't', version: '1' });
const handler = new StreamableHTTPHandler(server);
let explicit;
try { new Server({ name: 't', version: '1' }, { telemetry: { tracerProvider: {} } }); } catch (err) { explicit = err.message; }
console.log(JSON.stringify({
  server: server.telemetry === undefined,
  client: new Client({ name: 't', version: '1' }).telemetry === undefined,
  logger: new Server({ name: 't', version: '1' }, { logger: console }).telemetry !== undefined,
  explicit,
}));
await handler.close();`,
      );
      const run = spawnSync(process.execPath, [script], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
      assert.equal(run.status, 0, run.stderr);
      const seen = JSON.parse(run.stdout);
      assert.equal(seen.server, true);
      assert.equal(seen.client, true);
      assert.equal(seen.logger, true);
      assert.match(seen.explicit, /needs @opentelemetry\/api: install it, or pass it as `telemetry.api`/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
