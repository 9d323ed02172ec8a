// A 2026 server's input_required result comes from a server the client does not control. Whatever it holds, a
// call either goes on with the client's handlers seeing only requests a 2025 server could have sent (a method
// they answer, params the peer's check passes), or fails with InvalidServerResultError before any handler runs:
// never a TypeError, never a list read as an object of requests, never a state that is not a string echoed.
// Runs and seed: src/test-support/fuzz.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonRpcRequest } from '../jsonrpc/types.js';
import { validateParams } from '../protocol/validate.js';
import { fc, fuzzRuns } from '../test-support/fuzz.js';
import { memoryPeer } from '../test-support/memory-peer.js';
import { discoverResult, result } from '../test-support/scripted-http.js';
import { within } from '../test-support/time-limit.js';
import { Client } from './client.js';
import { InvalidServerResultError } from './server-result.js';

const METHODS = ['elicitation/create', 'sampling/createMessage', 'roots/list'];

/** Requests a server may well send: each method with params it takes. */
const goodRequest = fc.oneof(
  fc.record({
    method: fc.constant('elicitation/create'),
    params: fc.record({
      message: fc.string({ maxLength: 20 }),
      requestedSchema: fc.constant({ type: 'object', properties: { name: { type: 'string' } } }),
    }),
  }),
  fc.record({
    method: fc.constant('sampling/createMessage'),
    params: fc.record({ messages: fc.constant([]), maxTokens: fc.nat(1000) }),
  }),
  fc.record({ method: fc.constant('roots/list') }, { requiredKeys: [] }),
);

/** Near misses and anything at all: a method no one asks, params of the wrong shape, not an object. */
const badRequest = fc.oneof(
  fc.record({ method: fc.constantFrom('tools/call', 'ping', 'Elicitation/create', ''), params: fc.object() }),
  fc.record({ method: fc.constantFrom(...METHODS), params: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({
    method: fc.constant('elicitation/create'),
    params: fc.record({
      message: fc.jsonValue({ maxDepth: 1 }),
      requestedSchema: fc.jsonValue({ maxDepth: 2 }),
    }),
  }),
  fc.jsonValue({ maxDepth: 2 }),
);

const key = fc.oneof(fc.constantFrom('name', 'a b', '"q"', '0', '__proto__x'), fc.string({ maxLength: 8 }));

const inputRequests = fc.oneof(
  { weight: 4, arbitrary: fc.dictionary(key, goodRequest, { maxKeys: 3 }) },
  { weight: 3, arbitrary: fc.dictionary(key, fc.oneof(goodRequest, badRequest), { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.array(goodRequest, { maxLength: 2 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
);

const round = fc.record(
  {
    inputRequests,
    requestState: fc.oneof(
      { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
      fc.jsonValue({ maxDepth: 1 }),
    ),
  },
  { requiredKeys: [] },
);

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The spec's InputRequiredResult, read on its own terms (the params by the check every 2025 request gets). */
function isInputRequired(r: { inputRequests?: unknown; requestState?: unknown }): boolean {
  if (r.inputRequests === undefined && r.requestState === undefined) return false;
  if (r.requestState !== undefined && typeof r.requestState !== 'string') return false;
  if (r.inputRequests === undefined) return true;
  if (!isPlainObject(r.inputRequests)) return false;
  return Object.values(r.inputRequests).every(
    (q) =>
      isPlainObject(q) &&
      METHODS.includes(q.method as string) &&
      validateParams(q.method as string, q.params as never) === undefined,
  );
}

/** A 2026 server on the far end of a memory pair: `tools/call` needs `first`, then answers. */
function serve(first: Record<string, unknown>) {
  const calls: JsonRpcRequest[] = [];
  const peer = memoryPeer((m) => {
    if (m.id === undefined) return undefined;
    switch (m.method) {
      case 'server/discover':
        return [result(m.id, discoverResult({ tools: {} }))];
      case 'tools/list':
        return [result(m.id, { tools: [{ name: 't', inputSchema: { type: 'object' } }] })];
      case 'tools/call':
        return calls.push(m) === 1
          ? [result(m.id, { resultType: 'input_required', ...first })]
          : [result(m.id, { resultType: 'complete', content: [{ type: 'text', text: 'done' }] })];
      default:
        return [result(m.id, {})];
    }
  });
  return { connection: peer.connection, calls };
}

test('an input_required result reaches the handlers only as a 2025 server could have asked, or the call fails as the server’s fault', async () => {
  let checked = 0;
  await fc.assert(
    fc.asyncProperty(round, async (generated) => {
      // As the wire carries it (no -0, no null prototype).
      const first: Record<string, unknown> = JSON.parse(JSON.stringify(generated));
      const seen: { method: string; params: unknown }[] = [];
      const server = serve(first);
      const client = new Client(
        { name: 'prop', version: '1' },
        {
          requestTimeoutMs: 5000,
          maxInputRounds: 2,
          elicitation: {
            form: (params) => {
              seen.push({ method: 'elicitation/create', params });
              return { action: 'decline' };
            },
          },
          sampling: (params) => {
            seen.push({ method: 'sampling/createMessage', params });
            return { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' };
          },
          roots: () => {
            seen.push({ method: 'roots/list', params: undefined });
            return [];
          },
        },
      );
      const session = await within(client.connect(server.connection), 10_000, 'connect');
      try {
        assert.equal(session.era, 'modern');
        let failure: unknown;
        try {
          await within(session.callTool('t'), 10_000, 'call');
        } catch (err) {
          failure = err;
        }
        const valid = isInputRequired(first);
        if (!valid) {
          assert.ok(failure instanceof InvalidServerResultError, `refused as the server's fault: ${failure}`);
          assert.deepEqual(seen, [], 'no handler ran');
          assert.equal(server.calls.length, 1, 'nothing was sent again');
          checked++;
          return;
        }
        assert.ok(!(failure instanceof InvalidServerResultError), `a valid round is followed: ${failure}`);
        for (const { method, params } of seen)
          if (params !== undefined)
            assert.equal(
              validateParams(method, params as never),
              undefined,
              `${method} ${JSON.stringify(params)}`,
            );
        const retry = server.calls[1];
        if (retry !== undefined && first.requestState !== undefined)
          assert.equal(retry.params?.requestState, first.requestState, 'the state echoed as it came');
      } finally {
        await session.close();
      }
    }),
    fuzzRuns(150),
  );
  assert.ok(checked > 0, 'some rounds were refused');
});
