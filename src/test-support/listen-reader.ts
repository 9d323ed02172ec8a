import assert from 'node:assert/strict';
import type { Listen, ListenEvent } from '../client/listen.js';
import { within } from './time-limit.js';

/**
 * Reads a Listen one event at a time, each within `ms`; a listen that ends first fails the test, saying how
 * it ended.
 */
export function listenReader(listen: Listen, ms: number): (label: string) => Promise<ListenEvent> {
  const events = listen[Symbol.asyncIterator]();
  return async (label) => {
    const next = await within(events.next(), ms, label);
    if (next.done) {
      const end = await listen.ended;
      assert.fail(
        `the listen ended before ${label}: ${end.reason === 'failed' ? `failed, ${end.error.message}` : end.reason}`,
      );
    }
    return next.value;
  };
}
