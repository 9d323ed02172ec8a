// Serves the conformance fixture over Streamable HTTP at http://127.0.0.1:PORT/mcp.
//   usage: node --import tsx examples/conformance/serve.ts [--port N] [--json]
//   --port N  listen on N (default 3001; 0 picks a free port, printed in the URL line)
//   --json    answer requests with JSON bodies where the transport may (SSE where a tool call needs it)
//   --skills DIR  serve the skills in DIR too (the Skills extension's scenarios: examples/conformance/skills)
// Prints one line with the URL once it accepts connections; stops on SIGINT or SIGTERM.
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { MemoryEventStore } from '../../src/eventstore/memory-event-store.js';
import { serveSkills } from '../../src/extensions/skills/serve-skills.js';
import { defaultLoopbackPolicy } from '../../src/http/guards.js';
import { StreamableHTTPHandler } from '../../src/server/http/streamable-http-handler.js';
import { createFixtureServer } from './fixture-server.js';

const HOST = '127.0.0.1';
const PATH = '/mcp';
/** How long calls in flight may still run at shutdown. */
const SHUTDOWN_DEADLINE_MS = 1000;

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '3001' },
    json: { type: 'boolean', default: false },
    skills: { type: 'string' },
  },
});
const requestedPort = Number(values.port);
if (!Number.isInteger(requestedPort) || requestedPort < 0 || requestedPort > 65535) {
  process.stderr.write(`serve: --port must be an integer from 0 to 65535, not ${values.port}\n`);
  process.exit(2);
}

const server = createFixtureServer();
if (values.skills !== undefined) {
  await serveSkills(server, values.skills, (w) =>
    process.stderr.write(`fixture: skills: ${w.path}: ${w.message}\n`),
  );
}

const httpServer = createServer();
httpServer.listen(requestedPort, HOST, () => {
  const address = httpServer.address();
  const port = typeof address === 'object' && address !== null ? address.port : requestedPort;
  // Built once the port is known: DNS-rebinding protection allows exactly this port.
  const handler = new StreamableHTTPHandler(server, {
    // server-sse-polling resumes a tool call's stream after the tool ended its response.
    eventStore: new MemoryEventStore(),
    jsonResponse: values.json,
    dnsRebindingProtection: defaultLoopbackPolicy(port),
    // Refusals (e.g. the dns-rebinding scenario's forged Host) and failures, for the run's log.
    onerror: (err) => process.stderr.write(`fixture: ${err.message}\n`),
  });
  const listener = handler.node();
  httpServer.on('request', (req, res) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname === PATH) listener(req, res);
    else {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`Not found: the MCP endpoint is ${PATH}\n`);
    }
  });

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    httpServer.close();
    // Open SSE streams would keep close() waiting; the handler ends them, then every socket goes.
    handler.close({ deadlineMs: SHUTDOWN_DEADLINE_MS }).finally(() => {
      httpServer.closeAllConnections();
      process.exit(0);
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  const mode = values.json ? 'JSON responses' : 'SSE responses';
  process.stdout.write(`mcpwire conformance fixture listening on http://${HOST}:${port}${PATH} (${mode})\n`);
});
httpServer.on('error', (err) => {
  process.stderr.write(`serve: ${err.message}\n`);
  process.exit(1);
});
