import type { RequestId } from '../../jsonrpc/types.js';

/** A POSTed request whose answer has not arrived yet. */
export interface Awaited {
  readonly id: RequestId;
  readonly method: string;
  /** Answered, cancelled, or given up on: its stream need not be resumed. */
  settled: boolean;
}

/**
 * One server session as this client sees it. A restart (404 on a live session) aborts it and starts a
 * new one, so nothing begun for the lost session (streams, reconnection waits, POSTs) acts afterwards.
 */
export class Epoch {
  readonly controller = new AbortController();
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  /** The id of the initialize request in flight, whose result names the protocol version. */
  initializeId: RequestId | undefined;
  /** True once the standalone GET stream was asked for. */
  standalone = false;
  readonly awaiting = new Map<RequestId, Awaited>();

  get signal(): AbortSignal {
    return this.controller.signal;
  }
}
