// The 2025 Streamable HTTP client against a server whose answer to a request is hostile: any status, any
// Content-Type, a JSON body that is the answer, an invalid answer, an answer to another id, text that is not JSON,
// or nothing; or an SSE stream whose events come around the answer (notifications with any params, a request of
// the server's own, answers to other ids, data that is not JSON, events of another type, comments), ended, cut, or
// left open. Whatever it gets, the call settles within its bounds: with the result or the error of the first
// message that answers it when a 200 carried one, else with an error; and the session serves the next call. Runs
// and seed: test-support/fuzz.ts.
import { after, before, test } from 'node:test';
import { callsSettle, type Reply, writeReply } from '../../test-support/hostile-answers.js';
import { type LoopbackServer, listenLoopback, readBody } from '../../test-support/http-loopback.js';
import { within } from '../../test-support/time-limit.js';
import { Client } from '../client.js';
import type { ClientSession } from '../client-session.js';
import { StreamableHTTPClientConnection } from './streamable-http-client-connection.js';

const REQUEST_TIMEOUT_MS = 1_000;
const BOUND_MS = 20_000;

let server: LoopbackServer;
let session: ClientSession;
let current: Reply | undefined;

before(async () => {
  server = await listenLoopback(async (req, res) => {
    const body = req.method === 'POST' ? await readBody(req) : '';
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const msg = JSON.parse(body);
    if (msg.method === 'initialize') {
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'fuzz' });
      const result = {
        protocolVersion: '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'f', version: '1' },
      };
      return void res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
    }
    if (!('method' in msg) || !('id' in msg)) return void res.writeHead(202).end();
    if (msg.method !== 'tools/call' || current === undefined) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: {} }));
    }
    writeReply(res, current, msg.id);
  });
  const connection = new StreamableHTTPClientConnection(`http://127.0.0.1:${server.port}/mcp`, {
    retry: { maxAttempts: 2, initialDelayMs: 5, maxDelayMs: 20, jitter: 0 },
  });
  const client = new Client(
    { name: 'fuzz', version: '1' },
    { requestTimeoutMs: REQUEST_TIMEOUT_MS, onerror: () => {} },
  );
  session = await within(client.connect(connection), BOUND_MS, 'connect');
});

after(async () => {
  await session?.close();
  await server?.close();
});

test('a call settles with the answer a 200 carried first, or an error; the session serves the next', () =>
  callsSettle(
    session,
    // A 202 says the answer comes on the session's GET stream: its body is not read.
    (status) => status === 200,
    (reply) => {
      current = reply;
    },
    80,
  ));
