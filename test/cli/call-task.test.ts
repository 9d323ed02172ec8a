// `mcpwire call` (the built CLI) against mcpwire's task server: a call run as a task prints its id and its
// states on stderr and its result on stdout; `task ID` follows a task whose first mcpwire was killed;
// `--no-task` refuses tasks. Both eras.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, beforeEach, describe, test } from 'node:test';
import { CLI, killCliRuns, runCli, serveDemo } from '../../src/test-support/cli-run.js';
import { Gate, serveTaskServer, type TaskServer } from '../../src/test-support/task-server.js';
import { until } from '../../src/test-support/time-limit.js';

const BOUND = { timeout: 90_000 };
const MS = 45_000;
const AUTH = ['--header', 'Authorization: Bearer ada-token'];
const ID = /mcpwire: task (\S+); to follow it again: mcpwire call (\S+) (?:--era \w+ )?task \1\n/;

for (const era of ['modern', 'legacy'] as const) {
  describe(`mcpwire call and tasks, ${era} era`, () => {
    let fx: TaskServer;
    const mcpwire = async (args: string[]) => {
      const run = runCli(['call', fx.url, ...args, ...AUTH, '--era', era]);
      run.child.stdin.end();
      const code = await run.exit(MS);
      return { code, stdout: run.stdout(), stderr: run.stderr() };
    };

    before(async () => {
      assert.ok(existsSync(CLI), `${CLI} is missing: run \`npm run build\` first (npm test does)`);
      fx = await serveTaskServer();
    });
    beforeEach(() => {
      fx.gate = new Gate();
    });
    after(async () => {
      killCliRuns();
      await fx.close();
    });

    test('a call run as a task: its id and states on stderr, its result on stdout', BOUND, async () => {
      const run = await mcpwire(['call', 'asks', '--elicit-reply', '{"name":"Ada"}']);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, 'Hello, Ada!\n');
      const [, taskId, url] = ID.exec(run.stderr) ?? [];
      assert.ok(taskId, run.stderr);
      assert.equal(url, fx.url);
      assert.match(run.stderr, /^task working$/m);
      assert.match(run.stderr, /^task completed$/m);
      assert.ok(
        run.stderr.indexOf('mcpwire: task') < run.stderr.indexOf('task working'),
        'the id comes first',
      );
    });

    test('task ID follows a task whose mcpwire was killed, and prints its result', BOUND, async () => {
      const first = runCli(['call', fx.url, 'call', 'gated', ...AUTH, '--era', era]);
      first.child.stdin.end();
      await until(() => ID.test(first.stderr()), MS, 'the task id on stderr');
      const taskId = ID.exec(first.stderr())![1];
      first.child.kill('SIGKILL');
      await first.exit(MS).catch(() => {});
      const resumed = runCli(['call', fx.url, 'task', taskId, ...AUTH, '--era', era, '--json']);
      resumed.child.stdin.end();
      await until(
        () => /task working/.test(resumed.stderr()),
        MS,
        'the resumed task to be seen working',
      ).catch((err: Error) => {
        throw new Error(`${err.message}; it printed:\n${resumed.stderr()}`);
      });
      fx.gate.open();
      assert.equal(await resumed.exit(MS), 0, resumed.stderr());
      assert.deepEqual(JSON.parse(resumed.stdout()).content, [{ type: 'text', text: 'done' }]);
    });

    test('Ctrl-C cancels the task: the tool sees its signal abort; exit 130, no error', BOUND, async () => {
      fx.seen.aborted = undefined;
      const run = runCli(['call', fx.url, 'call', 'gated', ...AUTH, '--era', era]);
      run.child.stdin.end();
      await until(() => /task working/.test(run.stderr()), MS, 'the task to be seen working');
      run.child.kill('SIGINT');
      assert.equal(await run.exit(MS), 130, run.stderr());
      await until(() => fx.seen.aborted === true, MS, 'the tool to see the cancel');
      assert.doesNotMatch(run.stderr(), /mcpwire: .*(failed|error)/i, run.stderr());
    });

    test('--no-task: a tool that must run as a task fails, one that may runs plainly', BOUND, async () => {
      const refused = await mcpwire(['call', 'needs_task', '--no-task']);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /tool "needs_task" failed: /);
      assert.doesNotMatch(refused.stderr, /mcpwire: task /);
      fx.gate.open();
      const plain = await mcpwire(['call', 'gated', '--no-task']);
      assert.equal(plain.code, 0, plain.stderr);
      assert.equal(plain.stdout, 'done\n');
      assert.doesNotMatch(plain.stderr, /mcpwire: task /);
    });

    test('task ID of a task that does not exist fails with the server message', BOUND, async () => {
      const run = await mcpwire(['task', 'no-such-task']);
      assert.equal(run.code, 1);
      assert.match(run.stderr, /task no-such-task failed: /);
    });
  });
}

describe('mcpwire call countdown against mcpwire serve (its demo task)', () => {
  let url: string;
  before(async () => {
    url = (await serveDemo()).url;
  });
  after(killCliRuns);

  for (const era of ['modern', 'legacy'] as const) {
    test(`${era} era: run as a task, its id on stderr, the result on stdout`, BOUND, async () => {
      const run = runCli(['call', url, 'call', 'countdown', '{"from":1}', '--era', era]);
      run.child.stdin.end();
      assert.equal(await run.exit(MS), 0, run.stderr());
      assert.equal(run.stdout(), 'Liftoff after 1 s\n');
      assert.match(run.stderr(), ID);
      assert.match(run.stderr(), /^task completed$/m);
    });
  }
});
