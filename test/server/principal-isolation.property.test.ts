// No sequence of requests by one principal changes what another sees. Two callers with different principals
// (drawn from ada, ada with the scope admin, bob) share one Streamable HTTP endpoint with OAuth, access rules
// and a rate limit; whatever the first does in either era (calls it may and may not make, reads, subscriptions,
// completions, reconnections, a flood past its limit), the second then sees exactly the lists its own grant
// allows, its calls answer as before, and it is not limited.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, type ClientSession, connectUrl } from '../../src/client/index.js';
import { fc, fuzzRuns } from '../../src/test-support/fuzz.js';
import {
  GUARDED_GRANTS,
  GUARDED_VIEWS,
  type GuardedEndpoint,
  serveGuarded,
  shownTo,
} from '../../src/test-support/guarded-server.js';
import { ManualClock } from '../../src/test-support/manual-clock.js';

/** Requests per minute per principal: the first caller may pass it, the second never comes near. */
const LIMIT = 24;

type Action =
  | { kind: 'call'; tool: string }
  | { kind: 'read'; uri: string }
  | { kind: 'subscribe'; uri: string }
  | { kind: 'complete'; prompt: string }
  | { kind: 'lists' }
  | { kind: 'reconnect' }
  | { kind: 'flood' };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    kind: fc.constant('call' as const),
    tool: fc.constantFrom('echo', 'wipe', 'diary', 'nothing'),
  }),
  fc.record({
    kind: fc.constantFrom('read' as const, 'subscribe' as const),
    uri: fc.constantFrom('note://public', 'note://secret', 'diary://monday', 'note://none'),
  }),
  fc.record({ kind: fc.constant('complete' as const), prompt: fc.constantFrom('hello', 'review') }),
  fc.constant({ kind: 'lists' as const }),
  fc.constant({ kind: 'reconnect' as const }),
  fc.constant({ kind: 'flood' as const }),
);

let endpoint: GuardedEndpoint;
const clock = new ManualClock();

before(async () => {
  endpoint = await serveGuarded({ clock, rateLimit: { requests: LIMIT, windowMs: 60_000 } });
});
after(() => endpoint.close());

const connect = (era: 'legacy' | 'modern', token: string) =>
  connectUrl(new Client({ name: token, version: '1' }, { era, requestTimeoutMs: 10_000 }), endpoint.url, {
    headers: { authorization: `Bearer ${token}` },
    transport: 'http',
  });

/** Does `a` as the first caller, ignoring what it is refused: only what the second sees is the property. */
async function act(
  a: ClientSession,
  step: Action,
  reconnect: () => Promise<ClientSession>,
): Promise<ClientSession> {
  const tolerate = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      () => undefined,
    );
  switch (step.kind) {
    case 'call':
      await tolerate(a.callTool(step.tool, { message: 'from a' }));
      return a;
    case 'read':
      await tolerate(a.readResource(step.uri));
      return a;
    case 'subscribe':
      if (a.era === 'legacy') await tolerate(a.subscribeResource(step.uri));
      return a;
    case 'complete':
      await tolerate(a.complete({ type: 'ref/prompt', name: step.prompt }, { name: 'file', value: 'x' }));
      return a;
    case 'lists':
      await tolerate(shownTo(a));
      return a;
    case 'reconnect':
      await tolerate(a.close());
      // Past its limit it cannot connect again; the closed session refuses whatever follows.
      return reconnect().catch(() => a);
    case 'flood':
      for (let i = 0; i < LIMIT; i++) await tolerate(a.callTool('echo', { message: 'flood' }));
      return a;
  }
}

test('no sequence of calls by one principal changes what another sees', { timeout: 120_000 }, async () => {
  const pairs = [
    ['ada', 'bob'],
    ['ada-admin', 'bob'],
    ['bob', 'ada'],
    ['bob', 'ada-admin'],
  ] as const;
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...pairs),
      fc.constantFrom('legacy' as const, 'modern' as const),
      fc.array(action, { minLength: 1, maxLength: 8 }),
      async ([first, second], era, steps) => {
        // Every run starts with fresh windows.
        clock.advance(60_000);
        const b = await connect(era, second);
        let a = await connect(era, first);
        try {
          for (const step of steps) a = await act(a, step, () => connect(era, first));
          assert.deepEqual(await shownTo(b), GUARDED_VIEWS[second]);
          assert.deepEqual((await b.callTool('echo', { message: 'b' })).content, [
            { type: 'text', text: 'echo b' },
          ]);
          if (GUARDED_VIEWS[second]!.tools.includes('diary')) {
            assert.deepEqual((await b.callTool('diary')).content, [
              { type: 'text', text: `dear diary, from ${GUARDED_GRANTS[second]!.principal}` },
            ]);
          }
        } finally {
          await Promise.all([a.close().catch(() => {}), b.close()]);
        }
      },
    ),
    fuzzRuns(25),
  );
});
