// `mcpwire call` across `mcpwire serve --redis` processes: a call run as a task through one process, its
// mcpwire killed, is followed to its end through another process with `mcpwire call URL task ID` (issue 16
// part 3). Both eras. Needs `npm run build` and redis-server.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { killCliRuns, runCli } from '../../src/test-support/cli-run.js';
import { type ProcessCluster, startProcessCluster } from '../../src/test-support/process-cluster.js';
import { type RedisBackend, startRedisBackend } from '../../src/test-support/redis-backend.js';
import { until } from '../../src/test-support/time-limit.js';

const BOUND = { timeout: 120_000 };
const MS = 45_000;
const ID = /mcpwire: task (\S+); to follow it again/;

let redis: RedisBackend;
let cluster: ProcessCluster;

before(async () => {
  redis = await startRedisBackend();
  cluster = await startProcessCluster(2, { redis: redis.address });
});

after(async () => {
  killCliRuns();
  await cluster?.stopAll();
  await redis?.stop();
});

describe('mcpwire call task ID, through another process', () => {
  for (const era of ['modern', 'legacy'] as const) {
    test(
      `${era} era: started through process 0, its mcpwire killed, finished through process 1`,
      BOUND,
      async () => {
        const [first, second] = cluster.processes.map((p) => `${p.url}/mcp`);
        const start = runCli(['call', first, 'call', 'countdown', '{"from":3}', '--era', era]);
        start.child.stdin.end();
        await until(() => ID.test(start.stderr()), MS, 'the task id on stderr');
        const taskId = ID.exec(start.stderr())![1];
        start.child.kill('SIGKILL');
        await start.exit(MS).catch(() => {});
        const resumed = runCli(['call', second, 'task', taskId, '--era', era]);
        resumed.child.stdin.end();
        assert.equal(await resumed.exit(MS), 0, resumed.stderr());
        assert.equal(resumed.stdout(), 'Liftoff after 3 s\n');
        assert.match(resumed.stderr(), /^task completed$/m);
      },
    );
  }
});
