import type { PeerOptions } from '../peer/peer-options.js';
import type { ServerCapabilities } from '../protocol/types.js';
import type { TelemetryOptions } from '../telemetry/resolve.js';
import type { RequestStateKey } from './modern/request-state.js';
import type { TaskOptions } from './tasks/task-options.js';

/** How a server behaves; shared by every session it serves. */
export interface ServerOptions extends PeerOptions, TelemetryOptions {
  /** Told to clients at initialize: how to use this server (e.g. for a system prompt). */
  instructions?: string;
  /** Items per page of tools/list, resources/list, resources/templates/list and prompts/list. Default 100. */
  pageSize?: number;
  /** Declares the `logging` capability and lets sessions send log messages. Default true. */
  logging?: boolean;
  /**
   * Capabilities declared on top of those derived from what is registered, e.g. `experimental`,
   * or `tools: { listChanged: true }` for a server that registers its first tool only later.
   */
  capabilities?: ServerCapabilities;
  /**
   * Keys that seal the `requestState` of modern multi-round-trip requests (HMAC-SHA256; the first signs, all
   * verify, so keys rotate by adding the new one first). Default: one random key of this process, which is
   * right for one process only: several processes behind one endpoint need the same keys, or a client's
   * retry that reaches another process is refused.
   */
  requestStateKeys?: readonly RequestStateKey[];
  /** How long a sealed `requestState` stays valid. Default 5 minutes. */
  requestStateTtlMs?: number;
  /**
   * The caching hints of modern list, read and discover results (spec 2026-07-28, caching). Default
   * `{ ttlMs: 0, cacheScope: 'private' }`: clients re-fetch, and shared caches keep nothing.
   */
  cacheHints?: CacheHints;
  /**
   * Runs tools as tasks (the Tasks extension of 2026-07-28, the experimental tasks of 2025-11-25): where tasks
   * are kept, how long, how often clients should poll. A tool says whether it may or must run as one with
   * `execution: { taskSupport: 'optional' | 'required' }`. Default: no tasks.
   */
  tasks?: TaskOptions;
}

/** How long, and by whom, a modern client may cache a list, read or discover result. */
export interface CacheHints {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

export const DEFAULT_CACHE_HINTS: CacheHints = Object.freeze({ ttlMs: 0, cacheScope: 'private' });
