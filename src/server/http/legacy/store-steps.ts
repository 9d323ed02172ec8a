import type { MaybePromise } from '../../../eventstore/event-store.js';

/**
 * What a stream does after its event store answered, in the order the calls were made. A store may answer
 * directly or with promises; the calls themselves are made at once (a batching store gets them all in call
 * order), and only the steps that need an answer wait for it, behind the steps queued before them. While no
 * step waits (`idle`), the next one runs at once: a store that answers directly costs no promise.
 */
export class StoreSteps {
  private tail: Promise<void> | undefined;

  /** `report` hears a step that threw; later steps run all the same. */
  constructor(private readonly report: (err: unknown) => void) {}

  /** No step is waiting. */
  get idle(): boolean {
    return this.tail === undefined;
  }

  /** Settles once the steps queued so far have run; undefined when none is waiting. */
  get pending(): Promise<void> | undefined {
    return this.tail;
  }

  /** Runs `step` now when no step waits, else after the ones queued. */
  run(step: () => void): void {
    const tail = this.tail;
    if (tail === undefined) step();
    else this.chain(tail.then(step));
  }

  /**
   * Once `result` (a store's answer, direct or promised) is in and the steps queued before have run, calls `done`
   * with it, or `failed` with its error.
   */
  after<T>(result: MaybePromise<T>, done: (value: T) => void, failed: (err: unknown) => void): void {
    const tail = this.tail;
    if (!(result instanceof Promise)) {
      if (tail === undefined) done(result);
      else this.chain(tail.then(() => done(result)));
      return;
    }
    // Handled at once: a failure while earlier steps wait is no unhandled rejection.
    const outcome = result.then(
      (value) => () => done(value),
      (err) => () => failed(err),
    );
    this.chain((tail === undefined ? outcome : tail.then(() => outcome)).then(runStep));
  }

  /** Queues a step behind the others; a failure goes to `report` and does not stop later steps. */
  private chain(step: Promise<unknown>): void {
    const tail: Promise<void> = step.then(
      () => {
        if (this.tail === tail) this.tail = undefined;
      },
      (err) => {
        if (this.tail === tail) this.tail = undefined;
        this.report(err);
      },
    );
    this.tail = tail;
  }
}

const runStep = (step: () => void): void => step();

/** Runs `step` now when `queue` is not made yet or no step of it waits, else after the steps queued. */
export function runInOrder(queue: StoreSteps | undefined, step: () => void): void {
  if (queue === undefined) step();
  else queue.run(step);
}
