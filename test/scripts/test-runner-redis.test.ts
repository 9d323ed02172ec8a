// The README's test command on a machine without redis-server: scripts/test.mjs leaves the Redis test files out
// and says how to install it; with MCPWIRE_REQUIRE_REDIS=1 (CI) the same is an error.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

const REDIS_TEST = 'src/eventstore/redis-event-store.test.ts';

/** scripts/test.mjs given only a Redis test file, with a PATH on which no redis-server can be found. */
function runWithoutRedis(env: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, ['scripts/test.mjs', REDIS_TEST], {
    encoding: 'utf8',
    env: { ...process.env, PATH: '/nonexistent', ...env },
    timeout: 30_000,
  });
}

test('without redis-server on PATH, the Redis tests are skipped, saying how to install it', () => {
  const run = runWithoutRedis({ MCPWIRE_REQUIRE_REDIS: '' });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /SKIPPED 1 Redis test files: redis-server is not on PATH/);
  assert.match(run.stderr, /apt-get install redis-server/);
  assert.match(run.stderr, new RegExp(`^  ${REDIS_TEST}$`, 'm'));
});

test('with MCPWIRE_REQUIRE_REDIS=1, a missing redis-server fails the run', () => {
  const run = runWithoutRedis({ MCPWIRE_REQUIRE_REDIS: '1' });
  assert.equal(run.status, 1);
  assert.match(run.stderr, /redis-server is not on PATH, and MCPWIRE_REQUIRE_REDIS=1 requires/);
});
