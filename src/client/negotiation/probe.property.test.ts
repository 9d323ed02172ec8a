// The probe over a connection (stdio, memory) against a server whose answers to server/discover and to the ping
// behind it are hostile: any JSON where a result goes, any code, message and data in an error, answers in
// either order or none, and noise around them (notifications, a request of its own, an answer to an id never
// sent). Whatever it sends, connect ends within its bounds, the era is the one the rules of spec 2026-07-28
// (stdio, backwards compatibility) give for the discover answer, initialize goes out exactly when that era is
// the legacy one, and a refusal is an McpError with the code the server sent. Runs and seed:
// src/test-support/fuzz.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { McpError } from '../../jsonrpc/errors.js';
import { fuzzRuns } from '../../test-support/fuzz.js';
import { memoryPeer } from '../../test-support/memory-peer.js';
import { discoverResult } from '../../test-support/scripted-http.js';
import { within } from '../../test-support/time-limit.js';
import { Client } from '../client.js';

const OURS = '2026-07-28';
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
  | { kind: 'error'; code: number; message: unknown; data: unknown };

const versionList = fc.array(fc.constantFrom(OURS, '2025-11-25', '2025-06-18', '2099-01-01', 'x', ''), {
  maxLength: 3,
});
const anyData = fc.oneof(
  fc.jsonValue(),
  fc.record({ supported: fc.oneof({ weight: 3, arbitrary: versionList }, fc.jsonValue()) }),
);
const anyResult = fc.oneof(
  fc.jsonValue(),
  { weight: 2, arbitrary: fc.constant(discoverResult()) },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        supportedVersions: fc.oneof({ weight: 3, arbitrary: versionList }, fc.jsonValue()),
        capabilities: fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, fc.jsonValue()),
        _meta: fc.jsonValue(),
      },
      { requiredKeys: ['supportedVersions', 'capabilities'] },
    ),
  },
);
const answer: fc.Arbitrary<Answer> = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  { weight: 2, arbitrary: anyResult.map((result) => ({ kind: 'result' as const, result })) },
  {
    weight: 2,
    arbitrary: fc
      .record({
        code: fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(-32601, -32600, -32602, -32000, -32020, -32021, -32022) },
          fc.integer(),
        ),
        message: fc.oneof({ weight: 4, arbitrary: fc.string() }, fc.jsonValue()),
        data: anyData,
      })
      .map((e) => ({ kind: 'error' as const, ...e })),
  },
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
  return { jsonrpc: '2.0', id, error: { code: a.code, message: a.message, data: a.data } };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const supportedOf = (data: unknown) => (isRecord(data) ? data.supported : undefined);
const legacyOnly = (data: unknown) => {
  const s = supportedOf(data);
  // A version is of the legacy era when it sorts before the first modern one (dates do).
  return Array.isArray(s) && s.length > 0 && s.every((v) => typeof v === 'string' && v < OURS);
};

/** What the rules give for a discover answered the same way every time it is sent. */
function expected(discover: Answer): { era: 'modern' | 'legacy' } | { refused: number } {
  if (discover.kind === 'none') return { era: 'legacy' };
  if (discover.kind === 'result') {
    const r = discover.result;
    const ok =
      isRecord(r) &&
      Array.isArray(r.supportedVersions) &&
      r.supportedVersions.includes(OURS) &&
      isRecord(r.capabilities);
    return { era: ok ? 'modern' : 'legacy' };
  }
  // A well-formed error has an integer code and a string message; anything else is not an error the rules read.
  if (typeof discover.message !== 'string') return { era: 'legacy' };
  if ([-32020, -32021, -32022].includes(discover.code) && !legacyOnly(discover.data)) {
    return { refused: discover.code };
  }
  return { era: 'legacy' };
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
      console.error('OUT', JSON.stringify(outcome).slice(0, 80));
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
