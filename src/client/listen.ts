import type { JsonRpcNotification } from '../jsonrpc/types.js';
import type { SubscriptionFilter } from '../protocol/modern-types.js';

/** What a listen yields: a notification the filter asked for, or word that some may have been missed. */
export type ListenEvent =
  | { readonly type: 'notification'; readonly notification: JsonRpcNotification }
  /** The stream broke and was opened again: re-fetch what the filter covers, it may have changed meanwhile. */
  | { readonly type: 'resync'; readonly reason: string };

/** How a listen ended: closed by this client, ended by the server, or failed for good. */
export type ListenEnd =
  | { readonly reason: 'closed' }
  | { readonly reason: 'ended' }
  | { readonly reason: 'failed'; readonly error: Error };

/** Events held for a reader that does not keep up; past it the oldest go and a resync takes their place. */
const MAX_BUFFERED = 1000;

/**
 * One open listen (`ClientSession.listen`): the filter the server honoured, and the notifications it sends,
 * as an async iterable for one reader. Iteration ends when the listen ends (`ended` says how); `close` ends it
 * from this side. A reader that falls more than MAX_BUFFERED events behind loses the oldest, and is told so
 * with a resync, never with unbounded memory.
 */
export class Listen implements AsyncIterable<ListenEvent> {
  /** The part of the filter the server honours (it may be narrower than the one asked for). */
  honoured: SubscriptionFilter;
  /** Resolves once the listen is over. */
  readonly ended: Promise<ListenEnd>;
  private resolveEnded!: (end: ListenEnd) => void;
  private buffered: ListenEvent[] = [];
  private reader: ((result: IteratorResult<ListenEvent>) => void) | undefined;
  private end: ListenEnd | undefined;

  /** @internal Made by the session's era, which calls `push` and `finish`; `stop` is what `close` runs. */
  constructor(
    honoured: SubscriptionFilter,
    private readonly stop: () => Promise<void>,
  ) {
    this.honoured = honoured;
    this.ended = new Promise((resolve) => {
      this.resolveEnded = resolve;
    });
  }

  /** Ends the listen; resolves once the server was told (the stream closed, or the subscriptions undone). */
  close(): Promise<void> {
    return this.endWith({ reason: 'closed' });
  }

  /** @internal Ends the listen as `end` says, and undoes it on the wire as `close` does. */
  endWith(end: ListenEnd): Promise<void> {
    if (this.end !== undefined) return Promise.resolve();
    this.finish(end);
    return this.stop();
  }

  /** @internal */
  push(event: ListenEvent): void {
    if (this.end !== undefined) return;
    if (this.reader !== undefined) {
      const reader = this.reader;
      this.reader = undefined;
      reader({ value: event, done: false });
      return;
    }
    if (this.buffered.length >= MAX_BUFFERED) {
      this.buffered.splice(0, this.buffered.length - MAX_BUFFERED + 2);
      this.buffered.unshift({ type: 'resync', reason: `the reader fell ${MAX_BUFFERED} events behind` });
    }
    this.buffered.push(event);
  }

  /** @internal */
  finish(end: ListenEnd): void {
    if (this.end !== undefined) return;
    this.end = end;
    this.resolveEnded(end);
    const reader = this.reader;
    this.reader = undefined;
    reader?.({ value: undefined, done: true });
  }

  get isOpen(): boolean {
    return this.end === undefined;
  }

  [Symbol.asyncIterator](): AsyncIterator<ListenEvent> {
    return {
      next: () => {
        const event = this.buffered.shift();
        if (event !== undefined) return Promise.resolve({ value: event, done: false });
        if (this.end !== undefined) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.reader = resolve;
        });
      },
      return: async () => {
        await this.close();
        return { value: undefined, done: true };
      },
    };
  }
}
