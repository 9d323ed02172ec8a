import type { MaybePromise, StreamAppender } from '../../../eventstore/event-store.js';
import { RenumberedEventError } from '../errors.js';
import type { StoreSteps } from './store-steps.js';
import type { StreamOwner } from './stream-owner.js';

/** What a recorded stream writes once the store has answered. */
export interface RecordSink {
  /** Event `index` was recorded with `data` (the priming event, empty, when `priming`): write it. */
  deliver(index: number, data: string, priming: boolean): void;
  /** The store refused the event (or numbered it again): it goes out live, without an id. */
  unrecorded(data: string, err: unknown): void;
  /** Whether the stream's response has begun: a failed priming event is reported only then. */
  readonly started: boolean;
  /** No step waits for the store's answer: the next one may run at once. */
  readonly stepsIdle: boolean;
  /** The stream's queue of what waits for the store's answers (shared with the stream), made on first need. */
  steps(): StoreSteps;
}

/**
 * One stream's events in the event store. Every call to the store is made at once, in call order (a store that
 * batches gets them all); what is written waits for the store's answer behind the steps queued before it, so the
 * sink gets events in the order they were sent whatever the store answers with.
 */
export class StreamRecord {
  /** Index of the last event recorded. */
  lastIndex = -1;
  /** The stream was opened in the store. */
  opened = false;
  /** The stream's appender, when the store answered `open` with one directly: appends need no lookup then. */
  private appender: StreamAppender | undefined;

  constructor(
    private readonly owner: StreamOwner,
    /** The stream's id in the store. */
    private readonly id: string,
    private readonly sink: RecordSink,
  ) {}

  /** Records one serialized message (opening the stream first, with a priming event when `prime`). */
  append(data: string, prime: boolean): void {
    let index: MaybePromise<number>;
    try {
      if (!this.opened) this.open(prime);
      index = this.keep(data);
    } catch (err) {
      this.sink.steps().run(() => this.sink.unrecorded(data, err));
      return;
    }
    if (this.sink.stepsIdle && !(index instanceof Promise)) this.recorded(index, data);
    else
      this.sink.steps().after(
        index,
        (i) => this.recorded(i, data),
        (err) => this.sink.unrecorded(data, err),
      );
  }

  /**
   * Opens the stream in the store and, with `prime`, records the priming event when the session asks for one, whose
   * frame follows the frames before it. Answers the store's answer to the last of these calls: a promise when the
   * store gives one, which rejects when the stream could not be recorded.
   */
  open(prime: boolean): MaybePromise<unknown> {
    this.opened = true;
    const opening = this.owner.store!.open(this.owner.storeKey, this.id);
    // A failure fails the appends that follow, which report it.
    if (opening instanceof Promise) opening.catch(ignore);
    else if (opening !== undefined) this.appender = opening;
    return (prime ? this.prime() : undefined) ?? opening;
  }

  /** Records the priming event when the session asks for one; its frame follows the frames before it. */
  prime(): MaybePromise<number> | undefined {
    if (!this.owner.primes) return undefined;
    const index = this.keep('');
    if (this.sink.stepsIdle && !(index instanceof Promise)) this.primed(index);
    else
      this.sink.steps().after(
        index,
        (i) => this.primed(i),
        (err) => {
          // A POST's response that has not begun reports it when it begins (`startFailed`), or its events do.
          if (this.sink.started) this.owner.settings.report(err);
        },
      );
    return index;
  }

  /**
   * Closes the stream in the store at once (behind its appends, in call order: one round trip with them for a store
   * that batches); `then` runs once every step before has run and the store has answered, told whether the store
   * marked it closed.
   */
  close(then: (closedInStore: boolean) => void): void {
    let closing: MaybePromise<void> | undefined;
    let closed = true;
    try {
      closing = this.owner.store!.streamClosed(this.owner.storeKey, this.id);
    } catch (err) {
      this.owner.settings.report(err);
      closed = false;
    }
    if (this.sink.stepsIdle && !(closing instanceof Promise)) then(closed);
    else
      this.sink.steps().after(
        closing,
        () => then(closed),
        (err) => {
          this.owner.settings.report(err);
          then(false);
        },
      );
  }

  /** Appends `data` to the stream in the store: through its appender when there is one, else by its ids. */
  private keep(data: string): MaybePromise<number> {
    const appender = this.appender;
    return appender === undefined
      ? this.owner.store!.append(this.owner.storeKey, this.id, data)
      : appender.append(data);
  }

  private recorded(index: number, data: string): void {
    if (index <= this.lastIndex) {
      // This stream's own appends are numbered in order, so the store lost events it had recorded (a Redis
      // restarted from an older state) and numbers them again: the event still goes out live, without an id,
      // rather than being taken for one the response already sent.
      this.sink.unrecorded(data, new RenumberedEventError(this.id, index, this.lastIndex));
      return;
    }
    this.lastIndex = index;
    this.sink.deliver(index, data, false);
  }

  private primed(index: number): void {
    if (index > this.lastIndex) this.lastIndex = index;
    this.sink.deliver(index, '', true);
  }
}

const ignore = (): void => {};
