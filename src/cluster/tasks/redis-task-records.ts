import { isFinal } from '../../protocol/tasks.js';
import type { TaskRecord } from '../../tasks/task-store.js';
import { type RedisTaskCommands, SCRIPTS, type Script } from './redis-task-commands.js';
import { hashOf, memberHash, principalArgs, type TaskKeys } from './redis-task-keys.js';

/** Whoever the task belongs to: how its runner reads it. */
export const ANY = Symbol('any principal');

/** A task as read, and the process that runs it. */
export interface Stored {
  readonly record: TaskRecord;
  readonly runner: string;
}

/**
 * The task records Redis holds, one hash per task, read and changed only through the scripts, so that each
 * check and its change are one step: a read answers a task only to its principal, a write never changes a task
 * that is gone or final (or, with a runner, run by another), a signal lands only on a task of its principal.
 * Whether a runner still lives is the store's to judge, not theirs.
 */
export class RedisTaskRecords {
  constructor(
    private readonly redis: RedisTaskCommands,
    private readonly keys: TaskKeys,
    private readonly report: (err: unknown) => void,
  ) {}

  /** The task if `principal`'s ('any': whoever's, for its runner), as stored: a stopped runner not yet found. */
  async read(taskId: string, principal: string | undefined | typeof ANY): Promise<Stored | undefined> {
    if (typeof taskId !== 'string' || taskId === '') return undefined;
    const [hasP, p] = principal === ANY ? ['any', ''] : principalArgs(principal);
    const reply = await this.redis.run(SCRIPTS.get, [this.keys.task(hashOf(taskId))], [taskId, hasP, p]);
    return reply === null ? undefined : stored(reply as [string, string]);
  }

  /** The tasks of index `members` that are `principal`'s, and the members whose task is gone. */
  async readMembers(
    members: readonly string[],
    principal: string | undefined,
  ): Promise<{ found: Stored[]; gone: string[] }> {
    const [hasP, p] = principalArgs(principal);
    const replies = await Promise.all(
      members.map((m) => this.redis.run(SCRIPTS.get, [this.keys.task(memberHash(m))], ['', hasP, p])),
    );
    const found: Stored[] = [];
    const gone: string[] = [];
    replies.forEach((reply, i) => {
      if (reply === null) gone.push(members[i]);
      else found.push(stored(reply as [string, string]));
    });
    return { found, gone };
  }

  /**
   * Stores `next`, the change of `current`, unless the task is gone or final (or, with `runner`, no longer run by
   * it); answers it, or undefined. A final task is then offered to the principal's bound.
   */
  async write(current: TaskRecord, next: TaskRecord, runner: string): Promise<TaskRecord | undefined> {
    const h = hashOf(current.taskId);
    const asked = next.status === 'input_required' ? Object.keys(next.inputRequests ?? {}) : [];
    const args = [current.taskId, JSON.stringify(next), next.status, this.keys.bus, runner, ...asked];
    const member = await this.redis.run(SCRIPTS.update, [this.keys.task(h)], args);
    if (member === 0) return undefined;
    if (isFinal(next.status)) {
      const [all, , fin] = this.keys.index(next.principal);
      await this.redis.run(SCRIPTS.finished, [all, fin], [member as string]).catch(this.report);
    }
    return next;
  }

  /** Runs RESPOND or CANCEL on the task for `principal`: true when found. */
  async signal(s: Script, taskId: string, principal: string | undefined, pairs: string[]): Promise<boolean> {
    if (typeof taskId !== 'string' || taskId === '') return false;
    const h = hashOf(taskId);
    const [hasP, p] = principalArgs(principal);
    return (
      (await this.redis.run(s, [this.keys.task(h)], [taskId, hasP, p, this.keys.bus, h, ...pairs])) === 1
    );
  }
}

function stored([rec, runner]: [string, string]): Stored {
  return { record: parseRecord(rec), runner };
}

/** A record from its JSON, where a task without principal has no `principal` field. */
export function parseRecord(json: string): TaskRecord {
  const record = JSON.parse(json) as TaskRecord;
  return { ...record, principal: record.principal };
}
