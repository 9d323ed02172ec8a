import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sessionTtlMs } from './redis-cluster-options.js';

test("a shared session lives the handler's idle timeout, or as long as its events when it never times out", () => {
  assert.equal(sessionTtlMs(60_000, 3600), 60_000);
  assert.equal(sessionTtlMs(0, 3600), 3_600_000);
  assert.throws(
    () => sessionTtlMs(7_200_000, 3600),
    /keeps a stream 3600 s after its last event, less than an idle session lives \(7200000 ms\): raise the cluster's eventStore.ttlSeconds/,
  );
});
