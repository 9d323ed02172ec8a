// What a server says it honours, in its listen acknowledgement, comes from a server the client does not control.
// Whatever it sends there, the listen either opens with exactly that filter as `honoured`, or fails with a
// -32602 McpError naming the field and is cancelled: never a listen whose `honoured` is a string or a list.
// Runs and seed: src/test-support/fuzz.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpError } from '../jsonrpc/errors.js';
import { MetaKey } from '../protocol/envelope.js';
import { fc, fuzzRuns } from '../test-support/fuzz.js';
import { memoryPeer } from '../test-support/memory-peer.js';
import { discoverResult, result } from '../test-support/scripted-http.js';
import { within } from '../test-support/time-limit.js';
import { Client } from './client.js';

const client = new Client({ name: 'ack-prop', version: '1' }, { requestTimeoutMs: 5000 });
const CAPABILITIES = { tools: { listChanged: true }, resources: { subscribe: true } };

const flag = fc.oneof({ weight: 4, arbitrary: fc.boolean() }, fc.jsonValue({ maxDepth: 0 }));
const list = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.string({ maxLength: 12 }), { maxLength: 3 }) },
  fc.array(fc.jsonValue({ maxDepth: 0 }), { maxLength: 3 }),
  fc.jsonValue({ maxDepth: 1 }),
);
const filter = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record(
      {
        toolsListChanged: flag,
        promptsListChanged: flag,
        resourcesListChanged: flag,
        resourceSubscriptions: list,
        taskIds: list,
      },
      { requiredKeys: [] },
    ),
  },
  fc.jsonValue({ maxDepth: 2 }),
);

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The spec's SubscriptionFilter, read on its own terms. */
function isFilter(v: unknown): boolean {
  if (!isPlainObject(v)) return false;
  const flags = ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'];
  const lists = ['resourceSubscriptions', 'taskIds'];
  return (
    flags.every((k) => v[k] === undefined || typeof v[k] === 'boolean') &&
    lists.every(
      (k) => v[k] === undefined || (Array.isArray(v[k]) && v[k].every((s) => typeof s === 'string')),
    )
  );
}

test('a listen opens with what the ack says it honours when that is a filter, and fails as the server’s fault otherwise', async () => {
  await fc.assert(
    fc.asyncProperty(filter, async (generated) => {
      // As the wire carries it (no -0, no null prototype).
      const notifications: unknown = JSON.parse(JSON.stringify(generated));
      const peer = memoryPeer((m) => {
        if (m.method === 'server/discover') return [result(m.id, discoverResult(CAPABILITIES))];
        if (m.method !== 'subscriptions/listen') return undefined;
        const ack = {
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: { notifications, _meta: { [MetaKey.SubscriptionId]: m.id } },
        };
        return [ack];
      });
      const session = await within(client.connect(peer.connection), 10_000, 'connect');
      try {
        const opening = within(session.listen({ toolsListChanged: true }), 5000, 'listen');
        if (isFilter(notifications)) {
          const listen = await opening;
          assert.deepEqual(listen.honoured, notifications);
          await listen.close();
          return;
        }
        await assert.rejects(opening, (err: Error) => {
          assert.ok(err instanceof McpError && err.code === -32602, String(err));
          assert.match(
            err.message,
            /acknowledged subscriptions\/listen with a filter that is not one: notifications/,
          );
          return true;
        });
        const listenId = peer.seen.find((m) => m.method === 'subscriptions/listen').id;
        const cancelled = () =>
          peer.seen.some((m) => m.method === 'notifications/cancelled' && m.params?.requestId === listenId);
        await within(
          (async () => {
            while (!cancelled()) await new Promise((r) => setTimeout(r, 5));
          })(),
          5000,
          'the listen to be cancelled',
        );
      } finally {
        await session.close();
      }
    }),
    fuzzRuns(120),
  );
});
