import type { Params, RequestId } from '../jsonrpc/types.js';
import type { RequestOptions } from '../peer/peer-options.js';
import type { DiscoverResult, SubscriptionFilter } from '../protocol/modern-types.js';
import type { Implementation, LoggingLevel, ServerCapabilities } from '../protocol/types.js';
import type { Era } from '../protocol/versions.js';
import type { ClientContext } from './client-session.js';
import type { Listen } from './listen.js';
import type { TaskFeed } from './task-inbox.js';

/** What the server told this client about itself: from `initialize` (legacy) or `server/discover` (modern). */
export interface ServerDescription {
  readonly serverInfo: Implementation;
  readonly capabilities: ServerCapabilities;
  readonly instructions: string | undefined;
}

/**
 * Which era a server speaks, as negotiation found it: what a session was made with, what `connectUrl`
 * caches per endpoint, and what a caller may hand back (`prior`) to skip the probe. `at` dates it: a
 * legacy verdict is probed again once old, since a server may have been upgraded meanwhile.
 */
export type EraVerdict =
  | { readonly era: 'modern'; readonly protocolVersion: string; readonly at: number }
  | { readonly era: 'legacy'; readonly transport?: 'http' | 'sse'; readonly at: number };

/** What an era needs of its session: the wire, the client's handlers, and what it knows of the tools. */
export interface EraWire {
  /** Sends a request (after a restart under way, if any) and resolves with its result. */
  request<R>(method: string, params: Params | undefined, options: RequestOptions): Promise<R>;
  /** Sends a request at once; the id is known before the answer (a listen's acknowledgement names it). */
  issue<R>(
    method: string,
    params: Params | undefined,
    options: RequestOptions,
  ): { id: RequestId; result: Promise<R> };
  notify(method: string, params?: Params): Promise<void>;
  report(err: unknown): void;
  /** Answers one thing the server asked of this client, with the Client's handlers. */
  answer(method: string, params: Params | undefined, ctx: ClientContext): Promise<Record<string, unknown>>;
  /** True when repeating this request cannot do harm: lists, reads, discover, and tools that say so. */
  repeatable(method: string, params: Params | undefined): boolean;
  /** Reads the tool list again (the server refused headers built from the one we had). */
  refreshTools(options: RequestOptions | undefined): Promise<void>;
}

/**
 * How a session speaks its era: the one place where the two eras differ for a client. Everything else in
 * ClientSession (listing, calling, events, output checks) is shared and goes through `request`.
 */
export interface SessionEra {
  readonly name: Era;
  readonly protocolVersion: string;
  readonly server: ServerDescription;
  /** Sends a client request as the era does, and resolves with its complete result. */
  request<R>(method: string, params: Params | undefined, options: RequestOptions | undefined): Promise<R>;
  ping(options: RequestOptions | undefined): Promise<void>;
  setLoggingLevel(level: LoggingLevel, options: RequestOptions | undefined): Promise<void>;
  subscribeResource(uri: string, options: RequestOptions | undefined): Promise<void>;
  unsubscribeResource(uri: string, options: RequestOptions | undefined): Promise<void>;
  /** This client's roots changed. */
  rootsChanged(): Promise<void>;
  /** Opens a listen: resolves once the server acknowledged it (modern) or once it is set up (legacy). */
  listen(filter: SubscriptionFilter, options: RequestOptions | undefined): Promise<Listen>;
  /** The transport reached a fresh server session (legacy only): begin again. */
  restart(): Promise<void>;
  /** Where the session hears what the server pushes of the tasks it follows; one per session. */
  taskFeed(report: (err: Error) => void): TaskFeed;
}

/** A discover result that names the version this client will speak: what a modern session starts from. */
export interface ModernStart {
  readonly protocolVersion: string;
  readonly discover: DiscoverResult;
}
