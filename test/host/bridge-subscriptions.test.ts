// A child's resource updates reach the clients that asked for them, whichever era the child and each client speak,
// for URIs first asked after the child came up: a 2025 session's resources/subscribe and a 2026 client's listen
// each make the bridge ask the child (resources/subscribe in a 2025 child; a new listen naming every URI in a 2026
// child, whose listen names its URIs when it opens).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, type ClientSession, connectUrl } from '../../src/client/index.js';
import { bridgeChild, serveBridge } from '../../src/test-support/served-bridge.js';
import { until, within } from '../../src/test-support/time-limit.js';

const MS = 20_000;
const URI = 'note://counter';

for (const [childEra, flags] of [
  ['2026', []],
  ['2025', ['--legacy']],
] as const) {
  describe(`resource updates of a ${childEra} child`, () => {
    let close: () => Promise<void>;
    let url: string;

    before(async () => {
      ({ url, close } = await serveBridge({
        upstream: bridgeChild(...flags),
        stderr: () => {},
        report: () => {},
      }));
    });

    after(() => close?.());

    const connect = (era: 'legacy' | 'modern') =>
      within(connectUrl(new Client({ name: era, version: '1' }, { era }), url), MS, 'connect');
    const updates = (session: ClientSession) => {
      const heard: string[] = [];
      session.on('resourceUpdated', (params) => heard.push(params.uri));
      return heard;
    };

    test('a 2025 session that subscribes, and a 2026 client that listens, hear of each update; others do not', async () => {
      const [subscriber, listener, bystander, bumper] = await Promise.all([
        connect('legacy'),
        connect('modern'),
        connect('legacy'),
        connect('modern'),
      ]);
      try {
        const [bySubscriber, byListener, byBystander] = [
          updates(subscriber),
          updates(listener),
          updates(bystander),
        ];
        await subscriber.subscribeResource(URI);
        const listen = await listener.listen({ resourceSubscriptions: [URI] });
        await bumper.callTool('bump');
        await until(
          () => bySubscriber.length === 1 && byListener.length === 1,
          MS,
          'both to hear the update',
        );
        await bumper.callTool('bump');
        await until(() => bySubscriber.length === 2 && byListener.length === 2, MS, 'the second update');
        assert.deepEqual([bySubscriber, byListener, byBystander], [[URI, URI], [URI, URI], []]);
        await listen.close();
      } finally {
        await Promise.all([subscriber, listener, bystander, bumper].map((s) => s.close()));
      }
    });
  });
}
