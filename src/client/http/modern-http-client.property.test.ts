// The 2026-07-28 HTTP client against a server whose answer to a call is hostile, as the 2025 client's property
// test gives it (test-support/hostile-answers.ts): any status and Content-Type, a JSON body or SSE events around
// the answer, ended, cut or left open. The call settles within its bounds with the result or the error of the
// first message that answers it when a 2xx carried one (an invalid one: InvalidResponseError), else with an
// error; and the client serves the next call. Runs and seed: test-support/fuzz.ts.
import { after, before, test } from 'node:test';
import { callsSettle, type Reply, writeReply } from '../../test-support/hostile-answers.js';
import {
  discoverResult,
  type ScriptedServer,
  scriptedServer,
  sendJson,
} from '../../test-support/scripted-http.js';
import { within } from '../../test-support/time-limit.js';
import { Client } from '../client.js';
import type { ClientSession } from '../client-session.js';
import { ModernHTTPClientConnection } from './modern-http-client-connection.js';

const BOUND_MS = 20_000;

let server: ScriptedServer;
let session: ClientSession;
let current: Reply | undefined;

before(async () => {
  server = await scriptedServer((hit, res) => {
    const m = hit.message;
    if (m?.method === 'server/discover')
      return sendJson(res, { jsonrpc: '2.0', id: m.id, result: discoverResult() });
    if (m?.method !== 'tools/call' || current === undefined) {
      return sendJson(res, { jsonrpc: '2.0', id: m?.id, result: { resultType: 'complete' } });
    }
    writeReply(res, current, m.id);
  });
  const client = new Client(
    { name: 'fuzz', version: '1' },
    { era: 'modern', requestTimeoutMs: 1_000, onerror: () => {} },
  );
  session = await within(client.connect(new ModernHTTPClientConnection(server.url)), BOUND_MS, 'connect');
});

after(async () => {
  await session?.close();
  await server?.close();
});

test('a call settles with the answer a 2xx carried first, or an error; the client serves the next', () =>
  callsSettle(
    session,
    // There is no other stream for the answer to come on: any 2xx body is read (a 204 has none).
    (status) => status >= 200 && status < 300 && status !== 204,
    (reply) => {
      current = reply;
    },
    80,
  ));
