import { toErrorObject } from '../../jsonrpc/errors.js';
import { RequestCancelledError } from '../../peer/errors.js';
import { RunningRequest } from '../../peer/request-context.js';
import type { InputRequest, InputRequests } from '../../protocol/modern-types.js';
import type { Result } from '../../protocol/types.js';
import { newTaskId } from '../../tasks/task-id.js';
import type { TaskChange, TaskRecord, TaskSignal, TaskStore } from '../../tasks/task-store.js';
import { InputRequired } from '../input-required.js';
import { relayedError } from './input-relay.js';
import type { TaskSettings } from './task-options.js';

interface Waiting {
  readonly request: InputRequest;
  resolve(answer: unknown): void;
  reject(err: unknown): void;
}

/**
 * A task this process runs: what its handler asks of the client becomes the task's `input_required` state,
 * answered from any connection through the store's signals (2026: `tasks/update`; 2025: the answers to the
 * requests a `tasks/result` relayed, or the error the client gave instead); a `tasks/cancel` aborts the
 * handler's signal and ends the task `cancelled` at once; the handler's result or JSON-RPC error ends it
 * `completed` or `failed`. Writes to the store go one after the other, in the order they were made.
 */
export class TaskRun {
  private readonly waiting = new Map<string, Waiting>();
  private nextKey = 1;
  private flushQueued = false;
  private final = false;
  private writes: Promise<unknown> = Promise.resolve();
  private readonly unwatch: () => void;

  constructor(
    private readonly store: TaskStore,
    readonly record: TaskRecord,
    /** Aborted by a cancellation; the handler reads it as `ctx.signal`. */
    readonly running: RunningRequest,
    private readonly report: (err: unknown) => void,
  ) {
    this.unwatch = store.watch(record.taskId, this.signalled);
  }

  /** Stores a new task of `principal` (resolving once a `tasks/get` finds it) and starts watching it. */
  static async create(
    settings: TaskSettings,
    principal: string | undefined,
    ttlMs: number | null,
    report: (err: unknown) => void,
    running: RunningRequest = new RunningRequest('tools/call'),
  ): Promise<TaskRun> {
    const record = await settings.store.create({
      taskId: newTaskId(),
      principal,
      ttlMs,
      pollIntervalMs: settings.pollIntervalMs,
    });
    return new TaskRun(settings.store, record, running, report);
  }

  get taskId(): string {
    return this.record.taskId;
  }

  get signal(): AbortSignal {
    return this.running.signal;
  }

  /**
   * Asks the client through the task: the request joins the task's `inputRequests` under a key used once in
   * the task's life; the calls made in one turn (a `Promise.all`) are stored together.
   */
  ask(request: InputRequest): Promise<unknown> {
    if (this.final) return Promise.reject(this.endedError());
    const key = `input-${this.nextKey++}`;
    return new Promise((resolve, reject) => {
      this.waiting.set(key, { request, resolve, reject });
      if (this.flushQueued) return;
      this.flushQueued = true;
      setImmediate(this.flush);
    });
  }

  /** Ends the task with how its handler ended: a result (an `InputRequired` left unserved is a failure) or an error. */
  settle(outcome: Promise<Result | InputRequired>): void {
    outcome.then(
      (result) => {
        if (result instanceof InputRequired) {
          this.end({
            status: 'failed',
            error: toErrorObject(new Error('The task handler still needed input')),
          });
        } else this.end({ status: 'completed', result: result as Record<string, unknown> });
      },
      (err) => {
        if (this.final) return;
        const error = toErrorObject(err);
        this.end({ status: 'failed', statusMessage: error.message, error });
      },
    );
  }

  private readonly signalled = (signal: TaskSignal): void => {
    if (this.final) return;
    if (signal.kind === 'cancel') {
      this.end({ status: 'cancelled', statusMessage: 'Cancelled at the client’s request' });
      this.running.abort(new RequestCancelledError('tools/call', 'the task was cancelled (tasks/cancel)'));
      return;
    }
    let answered = false;
    for (const [key, answer] of Object.entries(signal.inputResponses)) {
      const waiting = this.waiting.get(key);
      // Keys never asked, or answered already, are ignored (SEP-2663, tasks/update).
      if (waiting === undefined) continue;
      this.waiting.delete(key);
      const error = relayedError(answer);
      if (error === undefined) waiting.resolve(answer);
      else waiting.reject(error);
      answered = true;
    }
    if (answered && !this.flushQueued) this.flush();
  };

  /** Stores what the task waits for now: the requests not yet answered, or back to `working`. */
  private readonly flush = (): void => {
    this.flushQueued = false;
    if (this.final) return;
    if (this.waiting.size === 0) {
      this.write({ status: 'working' });
      return;
    }
    const inputRequests: InputRequests = {};
    for (const [key, { request }] of this.waiting) inputRequests[key] = request;
    this.write({ status: 'input_required', inputRequests });
  };

  private end(change: TaskChange): void {
    if (this.final) return;
    this.final = true;
    this.unwatch();
    const ended = this.endedError();
    for (const waiting of this.waiting.values()) waiting.reject(ended);
    this.waiting.clear();
    this.write(change);
  }

  private endedError(): Error {
    return new RequestCancelledError('tools/call', 'the task has ended');
  }

  private write(change: TaskChange): void {
    const update = () => this.store.update(this.record.taskId, change);
    this.writes = this.writes.then(update, update);
    this.writes.catch(this.report);
  }
}
