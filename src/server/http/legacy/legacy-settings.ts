import type { EventStore } from '../../../eventstore/event-store.js';
import type { SSEWriterOptions } from '../../../http/sse-writer.js';
import type { Telemetry } from '../../../telemetry/telemetry.js';
import type { Clock } from '../../../util/clock.js';
import type { Server } from '../../server.js';
import type { SessionDirectory } from './session-directory.js';

/** How the 2025 sessions of one endpoint are kept: what every session shares, set once by the handler. */
export interface LegacySettings {
  readonly server: Server;
  readonly store: EventStore | undefined;
  readonly jsonResponse: boolean;
  readonly writerOptions: SSEWriterOptions;
  readonly retryMs: number;
  readonly clock: Clock;
  /** 0: sessions never expire. */
  readonly idleTimeoutMs: number;
  /** How long a session whose client sends nothing after initialize lives; 0: no limit. */
  readonly initializeTimeoutMs: number;
  readonly maxSessions: number;
  /** Where sessions are shared with other processes; undefined when they live in this one only. */
  readonly directory: SessionDirectory | undefined;
  readonly telemetry: Telemetry | undefined;
  /** Where errors no caller can receive go; called unbound. */
  readonly report: (err: unknown) => void;
  /** Requests in flight across the endpoint changed by `delta` (graceful shutdown waits for 0). */
  inFlightChanged(delta: number): void;
}
