import type { JsonRpcMessage } from '../jsonrpc/types.js';
import type { Connection } from '../peer/connection.js';
import { createMemoryPair } from '../peer/memory.js';

/** A hand-played peer on the far end of an in-memory pair: what it got, and what it sends. */
export interface MemoryPeer {
  /** The end to give the client. */
  readonly connection: Connection;
  /** Every message the peer received, in order. */
  readonly seen: any[];
  send(message: Record<string, unknown>): Promise<void>;
}

/** `respond` answers each message the peer receives with zero or more messages (undefined: silence). */
export function memoryPeer(
  respond: (message: any) => Array<Record<string, unknown>> | undefined,
): MemoryPeer {
  const [mine, theirs] = createMemoryPair();
  const seen: any[] = [];
  const send = (m: Record<string, unknown>) => mine.send(m as unknown as JsonRpcMessage);
  mine.start({
    message(message) {
      seen.push(message);
      for (const reply of respond(message) ?? []) send(reply).catch(() => {});
    },
    batch() {},
    error() {},
    restarted() {},
    closed() {},
  });
  return { connection: theirs, seen, send };
}
