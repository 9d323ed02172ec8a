import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  EventsPurgedError,
  StreamClosedError,
  UnknownEventError,
  UnknownStreamError,
} from '../eventstore/errors.js';
import type { EventStore } from '../eventstore/event-store.js';

/**
 * Makes a fresh store. With `limits`, the store must purge (oldest events first) to stay near `maxBytes`
 * bytes of held event data.
 */
export type MakeEventStore = (limits?: { maxBytes: number }) => EventStore | Promise<EventStore>;

/**
 * Registers the node:test tests every EventStore must pass. Session ids are random, so a store backed by a
 * shared server (Redis) can run the suite without cleaning up between tests.
 */
export function eventStoreContract(name: string, make: MakeEventStore): void {
  const fails = (run: () => unknown, error: new (...args: any[]) => Error) =>
    assert.rejects(async () => run(), error);

  describe(`EventStore contract: ${name}`, () => {
    test('numbers a stream’s events from 0 and replays exactly those after the given index', async () => {
      const store = await make();
      const s = randomUUID();
      await store.open(s, 'a');
      assert.equal(await store.append(s, 'a', 'zero'), 0);
      assert.equal(await store.append(s, 'a', 'one'), 1);
      assert.equal(await store.append(s, 'a', 'two'), 2);
      assert.deepEqual(await store.after(s, 'a', -1), { events: ['zero', 'one', 'two'], closed: false });
      assert.deepEqual((await store.after(s, 'a', 0)).events, ['one', 'two']);
      assert.deepEqual((await store.after(s, 'a', 1)).events, ['two']);
      assert.deepEqual((await store.after(s, 'a', 2)).events, []);
    });

    test('stores data verbatim, the empty string (a priming event) included', async () => {
      const store = await make();
      const s = randomUUID();
      await store.open(s, 'a');
      const data = ['', '{"jsonrpc":"2.0","method":"x"}', 'é 😀\nline', ' '];
      for (const d of data) await store.append(s, 'a', d);
      assert.deepEqual((await store.after(s, 'a', -1)).events, data);
    });

    test('opening an open stream keeps its events and its numbering', async () => {
      const store = await make();
      const s = randomUUID();
      await store.open(s, 'a');
      await store.append(s, 'a', 'x');
      await store.open(s, 'a');
      assert.equal(await store.append(s, 'a', 'y'), 1);
      assert.deepEqual((await store.after(s, 'a', -1)).events, ['x', 'y']);
    });

    test('many appends in the same millisecond, made without waiting, keep call order', async () => {
      const store = await make();
      const s = randomUUID();
      await store.open(s, 'burst');
      const data = Array.from({ length: 1000 }, (_, i) => `{"progress":${i + 1}}`);
      const indices = await Promise.all(data.map((d) => store.append(s, 'burst', d)));
      assert.deepEqual(
        indices,
        data.map((_, i) => i),
      );
      assert.deepEqual((await store.after(s, 'burst', -1)).events, data);
      assert.deepEqual((await store.after(s, 'burst', 4)).events, data.slice(5));
      assert.deepEqual((await store.after(s, 'burst', 998)).events, data.slice(999));
    });

    test('concurrent appends to different streams number and replay each stream on its own', async () => {
      const store = await make();
      const s = randomUUID();
      const streams = Array.from({ length: 8 }, (_, i) => `stream-${i}`);
      await Promise.all(streams.map((id) => store.open(s, id)));
      const pending: Promise<[string, number]>[] = [];
      for (let n = 0; n < 50; n++) {
        for (const id of streams)
          pending.push(Promise.resolve(store.append(s, id, `${id}:${n}`)).then((i) => [id, i]));
      }
      const results = await Promise.all(pending);
      for (const id of streams) {
        assert.deepEqual(
          results.filter(([r]) => r === id).map(([, i]) => i),
          Array.from({ length: 50 }, (_, n) => n),
        );
        assert.deepEqual(
          (await store.after(s, id, -1)).events,
          Array.from({ length: 50 }, (_, n) => `${id}:${n}`),
        );
      }
    });

    test('never replays another session’s stream, even under the same stream id', async () => {
      const store = await make();
      const [a, b] = [randomUUID(), randomUUID()];
      await store.open(a, 'shared');
      await store.append(a, 'shared', 'a0');
      await fails(() => store.after(b, 'shared', -1), UnknownStreamError);
      await fails(() => store.append(b, 'shared', 'b0'), UnknownStreamError);
      await store.open(b, 'shared');
      assert.equal(await store.append(b, 'shared', 'b0'), 0);
      assert.deepEqual((await store.after(a, 'shared', -1)).events, ['a0']);
      assert.deepEqual((await store.after(b, 'shared', -1)).events, ['b0']);
    });

    test('refuses streams never opened, indices never issued and malformed indices', async () => {
      const store = await make();
      const s = randomUUID();
      await fails(() => store.append(s, 'nope', 'x'), UnknownStreamError);
      await fails(() => store.after(s, 'nope', -1), UnknownStreamError);
      await store.open(s, 'a');
      await fails(() => store.after(s, 'a', 0), UnknownEventError);
      await store.append(s, 'a', 'x');
      assert.deepEqual((await store.after(s, 'a', 0)).events, []);
      await fails(() => store.after(s, 'a', 1), UnknownEventError);
      await fails(() => store.after(s, 'a', 99), UnknownEventError);
      await fails(() => store.after(s, 'a', -2), RangeError);
      await fails(() => store.after(s, 'a', 0.5), RangeError);
      await fails(() => store.after(s, 'a', Number.NaN), RangeError);
    });

    test('a closed stream says so in its replays and takes no more events', async () => {
      const store = await make();
      const s = randomUUID();
      await store.open(s, 'a');
      await store.append(s, 'a', 'progress');
      await store.append(s, 'a', 'result');
      await store.streamClosed(s, 'a');
      assert.deepEqual(await store.after(s, 'a', -1), { events: ['progress', 'result'], closed: true });
      assert.deepEqual(await store.after(s, 'a', 1), { events: [], closed: true });
      await fails(() => store.append(s, 'a', 'late'), StreamClosedError);
      await store.streamClosed(s, 'a');
      await store.streamClosed(s, 'never-opened');
      await store.streamClosed(randomUUID(), 'a');
    });

    test('a replay is complete or fails with EventsPurgedError, never partial', async () => {
      const store = await make({ maxBytes: 16 * 1024 });
      const s = randomUUID();
      await store.open(s, 'long');
      const data = Array.from({ length: 2000 }, (_, i) => `event ${i} `.padEnd(100, '.'));
      for (const d of data) await store.append(s, 'long', d);
      await fails(() => store.after(s, 'long', -1), EventsPurgedError);
      let complete = false;
      for (let k = -1; k < data.length; k++) {
        try {
          const replay = await store.after(s, 'long', k);
          assert.deepEqual(replay.events, data.slice(k + 1), `replay after ${k} is complete`);
          complete = true;
        } catch (err) {
          assert.ok(err instanceof EventsPurgedError, `after ${k}: ${err}`);
          assert.equal(complete, false, `after ${k}: purged, although an earlier index replayed`);
          assert.equal(err.streamId, 'long');
          assert.equal(err.afterIndex, k);
          assert.ok(err.firstHeld > k + 1);
        }
      }
      assert.ok(complete, 'the latest events are held');
    });

    test('sessionClosed frees the session: its streams are unknown, other sessions untouched', async () => {
      const store = await make();
      const [gone, kept] = [randomUUID(), randomUUID()];
      for (const s of [gone, kept]) {
        await store.open(s, 'x');
        await store.open(s, 'y');
        await store.append(s, 'x', `${s}:x`);
        await store.append(s, 'y', `${s}:y`);
      }
      await store.sessionClosed(gone);
      await fails(() => store.after(gone, 'x', -1), UnknownStreamError);
      await fails(() => store.after(gone, 'y', 0), UnknownStreamError);
      await fails(() => store.append(gone, 'x', 'late'), UnknownStreamError);
      await store.sessionClosed(gone);
      await store.sessionClosed(randomUUID());
      assert.deepEqual((await store.after(kept, 'x', -1)).events, [`${kept}:x`]);
      assert.deepEqual((await store.after(kept, 'y', -1)).events, [`${kept}:y`]);
    });
  });
}
