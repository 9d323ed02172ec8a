// What the processes of a cluster tell each other over Redis pub/sub, as JSON. `s` is always the session's hash
// (see sessionHash): session ids, which are credentials, never travel. The bus reaches every process; a node
// channel reaches one. Server events (`event`) name no session: they are the service's.

import type { JsonRpcMessage, JsonRpcNotification, RequestId } from '../jsonrpc/types.js';
import type { LoggingLevel } from '../protocol/types.js';
import type { ServerEvent } from '../server/server-events.js';

/** A session's shared state after change number `n` (published by the change script itself, in its order). */
export interface StateMessage {
  readonly k: 'state';
  readonly s: string;
  readonly n: number;
  /** The log level; false when none is set. */
  readonly ll: LoggingLevel | false;
  /** Subscribed URIs (Lua's JSON encoder writes an empty list as `{}`). */
  readonly subs: string[] | Record<string, never>;
  /**
   * Sent by the process that made the change to one holding a replica (the bus's copy has none): that process
   * waits for its `ack`, and answers the request that made the change once every holder sent one.
   */
  readonly a?: string;
}

/** To process `a` of a StateMessage: process `by` applied change `n` of the session (see ChangeAcks). */
export interface AckMessage {
  readonly k: 'ack';
  readonly s: string;
  readonly n: number;
  readonly by: string;
}

/** Process `by` now holds the response that carries stream `x`. */
export interface HoldMessage {
  readonly k: 'hold';
  readonly s: string;
  readonly x: string;
  readonly by: string;
}

/** The session ended for good (DELETE, or closed by the server): every replica closes. */
export interface ClosedMessage {
  readonly k: 'closed';
  readonly s: string;
}

/** The client cancelled a request that runs in another process than the one it told. */
export interface CancelMessage {
  readonly k: 'cancel';
  readonly s: string;
  readonly by: string;
  readonly m: JsonRpcNotification;
}

/** To the holder of stream `x`: events up to `i` are recorded (and the stream is closed, `c`). */
export interface AppendMessage {
  readonly k: 'append';
  readonly s: string;
  readonly x: string;
  readonly i: number;
  readonly c?: 1;
}

/** To the process waiting for it: what the client sent for its request (a response, or progress). */
export interface ForwardMessage {
  readonly k: 'forward';
  readonly s: string;
  readonly m: JsonRpcMessage;
}

/**
 * To the process waiting for it: the client answered its request `i` with a message that is no valid JSON-RPC
 * response, for reason `p` (`Parsed.invalidAnswer`). The request fails there at once.
 */
export interface InvalidAnswerMessage {
  readonly k: 'invalid';
  readonly s: string;
  readonly i: RequestId;
  readonly p: string;
}

/** A server event (list change, resource update) published by process `by`, for every other process. */
export interface EventMessage {
  readonly k: 'event';
  readonly by: string;
  readonly e: ServerEvent;
}

/** To one process, for a layer above the cluster: `b` for whoever handles topic `t` there (see DirectMessages). */
export interface DirectMessage {
  readonly k: 'direct';
  readonly t: string;
  readonly b: unknown;
}

/** What concerns one session. */
export type ClusterMessage =
  | StateMessage
  | HoldMessage
  | ClosedMessage
  | CancelMessage
  | AppendMessage
  | ForwardMessage
  | InvalidAnswerMessage;

/** Anything heard on the bus or a node channel. */
export type BusMessage = ClusterMessage | AckMessage | EventMessage | DirectMessage;

/** The message in `text`, or undefined when it is not one (from a process of another version, say). */
export function parseClusterMessage(text: string): BusMessage | undefined {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof m !== 'object' || m === null) return undefined;
  const { k, s } = m as { k?: unknown; s?: unknown };
  if (k === 'event') return isEventMessage(m) ? m : undefined;
  if (k === 'direct') return typeof (m as { t?: unknown }).t === 'string' ? (m as DirectMessage) : undefined;
  if (typeof s !== 'string') return undefined;
  switch (k) {
    case 'state':
    case 'hold':
    case 'closed':
    case 'cancel':
    case 'append':
    case 'forward':
    case 'invalid':
      return m as ClusterMessage;
    case 'ack': {
      const { n, by } = m as { n?: unknown; by?: unknown };
      return typeof n === 'number' && typeof by === 'string' ? (m as AckMessage) : undefined;
    }
    default:
      return undefined;
  }
}

function isEventMessage(m: object): m is EventMessage {
  const { by, e } = m as { by?: unknown; e?: Partial<Record<string, unknown>> };
  if (typeof by !== 'string' || typeof e !== 'object' || e === null) return false;
  if (e.type === 'lists_changed') return typeof e.kinds === 'number';
  return e.type === 'resource_updated' && typeof e.uri === 'string';
}
