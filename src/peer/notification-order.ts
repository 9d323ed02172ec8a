import type { JsonRpcNotification } from '../jsonrpc/types.js';
import type { MessageInfo } from './connection.js';
import type { Responder } from './responder.js';

type Held = [JsonRpcNotification, MessageInfo | undefined];

/**
 * Runs a peer's notifications in the order they came. A handler that returns a promise holds the notifications
 * after it until it settles; one that returns at once holds nothing, and no queue exists then. What a handler
 * throws or rejects with goes to the peer's `report`.
 */
export class NotificationOrder {
  /** Notifications waiting for an async handler to finish; present only then. */
  private queue: Held[] | undefined;

  constructor(
    private readonly responder: Pick<Responder, 'notified'>,
    private readonly peer: { report(err: unknown): void },
  ) {}

  deliver(notification: JsonRpcNotification, info: MessageInfo | undefined): void {
    if (this.queue !== undefined) this.queue.push([notification, info]);
    else this.run(notification, info);
  }

  private run(notification: JsonRpcNotification, info: MessageInfo | undefined): void {
    let outcome: void | Promise<void>;
    try {
      outcome = this.responder.notified(notification, info);
    } catch (err) {
      this.peer.report(err);
      return;
    }
    if (outcome instanceof Promise) {
      this.queue = [];
      outcome.catch((err) => this.peer.report(err)).then(() => this.drain());
    }
  }

  private drain(): void {
    const queue = this.queue!;
    this.queue = undefined;
    while (queue.length > 0) {
      const [n, info] = queue.shift()!;
      this.run(n, info);
      if (this.queue !== undefined) {
        // Another async handler started: the rest wait behind it, still in order.
        (this.queue as Held[]).push(...queue);
        return;
      }
    }
  }
}
