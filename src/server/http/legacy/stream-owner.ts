import type { EventStore } from '../../../eventstore/event-store.js';
import type { LegacySettings } from './legacy-settings.js';
import type { Stream } from './stream.js';

/** What a stream needs from the session transport that owns it. */
export interface StreamOwner {
  /** Where events are recorded for resumption; undefined when streams cannot be resumed. */
  readonly store: EventStore | undefined;
  /** The session's key in the event store. */
  readonly storeKey: string;
  /** What every session of the endpoint shares: the writers' options, the reconnection delay, where errors go. */
  readonly settings: LegacySettings;
  /** Whether each new SSE response starts with a priming event (SEP-1699). */
  readonly primes: boolean;
  /** The principal handlers see in `ctx.transport.principal`. */
  readonly principalName: string | undefined;
  /** The stream sent its last event: it leaves the session's table of live streams. */
  streamFinished(stream: Stream): void;
  /** A response that carried the stream ended (the client left, it was replaced, or closed early). */
  writerReleased(stream: Stream): void;
  /** Shared sessions: a response here now carries the stream. */
  held(stream: Stream): void;
  /** Shared sessions: the stream recorded its events up to `index` here, and is closed in the store if `closed`. */
  recorded(stream: Stream, index: number, closed: boolean): void;
}

/**
 * What a stream is: the answers to one POST; the standalone GET stream; or, in a shared session, a stream that
 * another process writes and a resumed GET follows here (`follower`).
 */
export type StreamKind = 'post' | 'get' | 'follower';

/** Shared sessions: `floor` of a new GET response, whose first event (the priming one, if any) sets it. */
export const UNSET = -2;
