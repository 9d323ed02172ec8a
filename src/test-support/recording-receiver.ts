import type { JsonRpcMessage } from '../jsonrpc/types.js';
import type { Receiver } from '../peer/connection.js';

/** A Receiver for tests that records everything a transport delivers, in order. */
export interface RecordingReceiver extends Receiver {
  readonly messages: JsonRpcMessage[];
  readonly batches: JsonRpcMessage[][];
  readonly errors: Error[];
  /** One entry per `closed` call: its cause, or undefined. */
  readonly closes: (Error | undefined)[];
  readonly restarts: Error[];
  /** One entry per `restarted` call: the messages it said were never sent. */
  readonly unsent: (readonly JsonRpcMessage[])[];
  /** Resolves once `check` holds, polling every few ms; rejects after `ms` (bounded tests). */
  until(check: () => boolean, ms?: number): Promise<void>;
}

export function recordingReceiver(): RecordingReceiver {
  const r: RecordingReceiver = {
    messages: [],
    batches: [],
    errors: [],
    closes: [],
    restarts: [],
    unsent: [],
    message: (m) => r.messages.push(m),
    batch: (b) => r.batches.push(b),
    error: (e) => r.errors.push(e),
    closed: (c) => r.closes.push(c),
    restarted: (c, unsent = []) => {
      r.restarts.push(c);
      r.unsent.push(unsent);
    },
    async until(check, ms = 5000) {
      const deadline = Date.now() + ms;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms: ${check}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
  };
  return r;
}
