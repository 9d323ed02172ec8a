import { parseMessage } from '../jsonrpc/parse.js';
import { serialize } from '../jsonrpc/serialize.js';
import type { JsonRpcMessage } from '../jsonrpc/types.js';
import type { Connection, Receiver } from './connection.js';
import { deliver } from './deliver.js';

const RESOLVED = Promise.resolve();

/**
 * Two connected in-process ends, for tests and embedding. Each message crosses as JSON text and is
 * parsed on arrival, so the receiver sees exactly what a wire would carry (no shared objects; an
 * invalid message is answered with a JSON-RPC error and reported, as on stdio). Delivery is
 * asynchronous and in order; messages sent before the peer's `start` wait for it. Closing either
 * end closes both: each receiver's `closed` follows the messages already in flight, once.
 */
export function createMemoryPair(): [Connection, Connection] {
  const link = new Link();
  const a = new MemoryEnd(link);
  const b = new MemoryEnd(link);
  a.peer = b;
  b.peer = a;
  link.ends = [a, b];
  return [a, b];
}

/** What the two ends share: whether the pair is closed, and the promise `close` returns. */
class Link {
  closed = false;
  ends: MemoryEnd[] = [];
  private done?: Promise<void>;

  close(): Promise<void> {
    if (this.done === undefined) {
      this.closed = true;
      for (const end of this.ends) end.schedule();
      // Queued after each end's drain, so it settles once both receivers have heard `closed`.
      this.done = new Promise((resolve) => queueMicrotask(resolve));
    }
    return this.done;
  }
}

class MemoryEnd implements Connection {
  peer!: MemoryEnd;
  private receiver?: Receiver;
  /** Texts sent to this end, not yet delivered; drained in one microtask per burst. */
  private inbox: string[] = [];
  private scheduled = false;
  private closedDelivered = false;

  constructor(private readonly link: Link) {}

  start(receiver: Receiver): void {
    if (this.receiver !== undefined) throw new Error('Connection already started');
    this.receiver = receiver;
    this.schedule();
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (this.link.closed) return Promise.reject(new Error('Connection closed'));
    let text: string;
    try {
      text = serialize(message);
    } catch (err) {
      return Promise.reject(err);
    }
    this.peer.inbox.push(text);
    this.peer.schedule();
    return RESOLVED;
  }

  close(): Promise<void> {
    return this.link.close();
  }

  schedule(): void {
    if (this.scheduled || this.receiver === undefined) return;
    this.scheduled = true;
    queueMicrotask(this.drain);
  }

  private readonly drain = (): void => {
    this.scheduled = false;
    const receiver = this.receiver!;
    const inbox = this.inbox;
    let i = 0;
    try {
      // Indexed so that messages a receiver causes to arrive here meanwhile are delivered in turn.
      for (; i < inbox.length; i++) deliver(parseMessage(inbox[i]), receiver, this.answer);
    } finally {
      // A throwing receiver must not see the messages before the one that threw again.
      if (i < inbox.length) {
        inbox.splice(0, i + 1);
        this.schedule();
      } else inbox.length = 0;
    }
    if (this.link.closed && !this.closedDelivered) {
      this.closedDelivered = true;
      receiver.closed();
    }
  };

  private readonly answer = (reply: JsonRpcMessage): void => {
    this.send(reply).catch(() => {});
  };
}
