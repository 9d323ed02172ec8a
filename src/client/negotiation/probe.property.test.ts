// The probe over a connection (stdio, memory) against a server whose answers to server/discover and to the ping
// behind it are hostile: any JSON where a result goes, any code, message and data in an error, answers in
// either order or none, and noise around them (notifications, a request of its own, an answer to an id never
// sent). Whatever it sends, connect ends within its bounds, the era is the one the rules of spec 2026-07-28
// (stdio, backwards compatibility) give for the discover answer, initialize goes out exactly when that era is
// the legacy one, and a refusal is an McpError with the code the server sent. Runs and seed:
// src/test-support/fuzz.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpError } from '../../jsonrpc/errors.js';
import { anyError, anyResult, type Verdict, verdictFor } from '../../test-support/discover-arbitraries.js';
import { fc, fuzzRuns } from '../../test-support/fuzz.js';
import { memoryPeer } from '../../test-support/memory-peer.js';
import { within } from '../../test-support/time-limit.js';
import { Client } from '../client.js';

const REQUEST_TIMEOUT_MS = 500;
const client = new Client(
  { name: 'probe-fuzz', version: '1' },
  { requestTimeoutMs: REQUEST_TIMEOUT_MS, probeTimeoutMs: 40 },
);
const INIT = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  serverInfo: { name: 'legacy', version: '1' },
};

type Answer =
  | { kind: 'none' }
  | { kind: 'result'; result: unknown }
  | { kind: 'error'; error: { code: number; message: unknown; data: unknown } };

const answer: fc.Arbitrary<Answer> = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  { weight: 2, arbitrary: anyResult.map((result) => ({ kind: 'result' as const, result })) },
  { weight: 2, arbitrary: anyError.map((error) => ({ kind: 'error' as const, error })) },
);
const noise = fc.array(
  fc.constantFrom(
    { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } },
    { jsonrpc: '2.0', id: 'theirs', method: 'roots/list' },
    { jsonrpc: '2.0', id: 987654, result: {} },
    { jsonrpc: '2.0', id: 'never-sent', error: { code: -32603, message: 'stray' } },
  ),
  { maxLength: 3 },
);

function message(id: unknown, a: Answer): Record<string, unknown> | undefined {
  if (a.kind === 'none') return undefined;
  if (a.kind === 'result') return { jsonrpc: '2.0', id, result: a.result };
  return { jsonrpc: '2.0', id, error: a.error };
}

/** What the rules give for a discover answered the same way every time it is sent (no HTTP status here). */
function expected(discover: Answer): Verdict {
  // No answer, or one JSON-RPC does not read as a response, is silence: legacy too.
  return verdictFor(message(0, discover), 0);
}

test('a hostile answer to the probe ends the connect within bounds, in the era the rules give', async () => {
  await fc.assert(
    fc.asyncProperty(answer, answer, fc.boolean(), noise, async (discover, ping, pingFirst, extra) => {
      let pinged = false;
      let held: Array<Record<string, unknown>> = [];
      const peer = memoryPeer((m) => {
        if (m.method === 'initialize') return [{ jsonrpc: '2.0', id: m.id, result: INIT }];
        const reply = message(m.id, m.method === 'ping' ? ping : discover);
        const out = reply === undefined ? [] : [reply];
        if (m.method === 'ping') {
          pinged = true;
          return [...out, ...held];
        }
        if (m.method !== 'server/discover') return undefined;
        // Answered behind the ping's answer when the ping is to come first.
        if (pingFirst && !pinged) {
          held = [...extra, ...out];
          return undefined;
        }
        return [...extra, ...out];
      });
      const want = expected(discover);
      let outcome: { era: string } | { refused: number; message: string };
      try {
        const session = await within(client.connect(peer.connection), 10 * REQUEST_TIMEOUT_MS, 'connect');
        outcome = { era: session.era };
        await session.close();
      } catch (err) {
        if (!(err instanceof McpError)) throw err;
        outcome = { refused: err.code, message: err.message };
      }
      const initialized = peer.seen.some((m) => m.method === 'initialize');
      if ('refused' in want) {
        assert.equal((outcome as { refused?: number }).refused, want.refused, JSON.stringify(outcome));
        assert.equal(initialized, false);
      } else {
        assert.deepEqual(outcome, { era: want.era });
        assert.equal(initialized, want.era === 'legacy');
      }
    }),
    fuzzRuns(150),
  );
});
