// `mcpwire serve --redis-cluster NODES` refused before anything starts when its nodes or its company are wrong
// (exit 2, saying what to change). No Redis is needed: test/cluster/redis-cluster/ serves on one.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { killCliRuns, runCli } from '../../src/test-support/cli-run.js';

after(() => killCliRuns());

test('--redis-cluster takes nodes separated by commas, alone, and only where sessions are shared', async () => {
  for (const [args, message] of [
    [
      ['--redis-cluster', '10.0.0.1:7000,http://10.0.0.2:7000'],
      /"http:\/\/10.0.0.2:7000" is not the address of a Redis node/,
    ],
    [['--redis-cluster', ''], /"" is not the address of a Redis node/],
    [['--redis', 'redis://127.0.0.1:1', '--redis-cluster', '127.0.0.1:1'], /give one of them/],
    [
      ['--redis-cluster', '127.0.0.1:1', '--stateless'],
      /--redis-cluster shares sessions between processes; --stateless has no sessions/,
    ],
  ] as const) {
    const run = runCli(['serve', '--port', '0', ...args]);
    assert.equal(await run.exit(), 2, run.stderr());
    assert.match(run.stderr(), message);
    assert.equal(run.stdout(), '');
  }
});
