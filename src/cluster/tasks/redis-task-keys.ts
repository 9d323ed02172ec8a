import { createHash } from 'node:crypto';

// How RedisTaskStore names things in Redis: never by a task id or a principal (the keyspace and the channels show
// neither), and with hash tags that put each task's keys, and each principal's index, in one Redis Cluster slot.

/** 128 bits of SHA-256, base64url: how keys name a task id or a principal. */
export function hashOf(text: string): string {
  return createHash('sha256').update(text).digest().subarray(0, 16).toString('base64url');
}

/** The script arguments naming a principal: whether there is one ('1', else '0'), and it. */
export function principalArgs(principal: string | undefined): [string, string] {
  return principal === undefined ? ['0', ''] : ['1', principal];
}

/** An index member (`<µs, 16 digits>:<task hash>`), which is also the cursor of the page it ends. */
const MEMBER = /^\d{16}:[\w-]{22}$/;

/** Whether `cursor` is one `list` issued (an index member). */
export function isCursor(cursor: string): boolean {
  return MEMBER.test(cursor);
}

/** The task hash of an index member. */
export function memberHash(member: string): string {
  return member.slice(17);
}

/** The keys and the channel under one prefix. */
export class TaskKeys {
  /** The channel of changes and signals, which every process listens to. */
  readonly bus: string;

  constructor(readonly prefix: string) {
    this.bus = `${prefix}:bus`;
  }

  /** `<prefix>:{h}`: the hash of the task whose id hashes to `h`, its one key. */
  task(h: string): string {
    return `${this.prefix}:{${h}}`;
  }

  /** `<prefix>:runner:<id>`: the lease of a process running tasks. */
  lease(runner: string): string {
    return `${this.prefix}:runner:${runner}`;
  }

  /** `<prefix>:runner:<id>:tasks`: the ids of the tasks a process started and has not finished. */
  runnerTasks(runner: string): string {
    return `${this.lease(runner)}:tasks`;
  }

  /** The processes that have held a lease (a set), for the sweep to find those that stopped. */
  get runners(): string {
    return `${this.prefix}:runners`;
  }

  /** The principal's index in its slot `{ph}` (`-` for none): every task, their expiry, the final ones. */
  index(principal: string | undefined): [all: string, exp: string, fin: string] {
    const base = `${this.prefix}:index:{${principal === undefined ? '-' : hashOf(principal)}}`;
    return [`${base}:all`, `${base}:exp`, `${base}:fin`];
  }
}
