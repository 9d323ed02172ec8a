import type { Clock } from '../../util/clock.js';
import type { RedisTaskCommands } from './redis-task-commands.js';
import type { TaskKeys } from './redis-task-keys.js';

/**
 * Finds the processes that stopped while running tasks, so that their tasks are failed (and the change heard by
 * every process, for `notifications/tasks`) without waiting for someone to read them. Every process runs it
 * once per lease: the runners (`<prefix>:runners`) whose lease is gone have the tasks they ran
 * (`<prefix>:runner:<id>:tasks`) handed to `fail`, then are forgotten. Several processes may sweep one runner at
 * once: `fail` changes and publishes each task once. Costs per lease and process one `SMEMBERS` and one `EXISTS`
 * per other runner.
 */
export class RunnerSweep {
  private timer: unknown;

  constructor(
    private readonly redis: RedisTaskCommands,
    private readonly keys: TaskKeys,
    private readonly self: string,
    private readonly fail: (runner: string, taskIds: readonly string[]) => Promise<void>,
    private readonly report: (err: unknown) => void,
  ) {}

  /** Sweeps every `intervalMs` on `clock` until `stop`. */
  start(clock: Clock, intervalMs: number): void {
    const tick = () => {
      this.sweep()
        .catch(this.report)
        .then(() => {
          if (this.timer !== undefined) this.timer = clock.setTimeout(tick, intervalMs);
        });
    };
    this.stop = () => {
      clock.clearTimeout(this.timer);
      this.timer = undefined;
    };
    this.timer = clock.setTimeout(tick, intervalMs);
  }

  stop: () => void = () => {};

  async sweep(): Promise<void> {
    const runners = (await this.redis.command((c) => c.smembers(this.keys.runners))).filter(
      (r) => r !== this.self,
    );
    const leases = await Promise.all(
      runners.map((r) => this.redis.command((c) => c.exists(this.keys.lease(r)))),
    );
    for (const [i, runner] of runners.entries()) {
      if (leases[i] !== 0) continue;
      const tasks = this.keys.runnerTasks(runner);
      await this.fail(runner, await this.redis.command((c) => c.smembers(tasks)));
      await this.redis.command((c) => c.srem(this.keys.runners, runner));
      await this.redis.command((c) => c.unlink(tasks));
    }
  }
}
