import type { EventStore } from '../../../eventstore/event-store.js';
import type { SharedRequestCounts } from '../../../http/rate-limiter.js';
import type {
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  RequestId,
} from '../../../jsonrpc/types.js';
import type { ClientCapabilities, Implementation } from '../../../protocol/types.js';
import type { ListenLeases } from '../modern/listen-streams.js';
import type { LegacySettings } from './legacy-settings.js';
import type { StreamableServerTransport } from './session-transport.js';
import type { Stream } from './stream.js';

/** What any process needs to serve a session that another process started. */
export interface SharedSession {
  readonly protocolVersion: string;
  readonly clientInfo: Implementation | undefined;
  readonly clientCapabilities: ClientCapabilities | undefined;
  /**
   * The principal that created the session (`exchange.principal`), compared with `===`: a string or undefined;
   * any other value cannot be compared in another process, and there it equals nothing (the session is unknown).
   */
  readonly principal: unknown;
  /** The session's stream-id prefix: its standalone GET stream is `<prefix>0` in every process. */
  readonly streamPrefix: string;
}

/**
 * Where the sessions of a `StreamableHTTPHandler` live when several processes serve them (its `cluster`
 * option); `RedisCluster` (src/cluster) implements it. Without one, sessions live in the handler's process.
 *
 * Promise to the handler: a session registered by one process can be loaded by any other until it is removed
 * or expires; while `unavailable()` says nothing, the calls reach the shared state, and they reject with
 * `StoreUnavailableError` when it fails meanwhile.
 */
export interface SessionDirectory {
  /** This process's id, unique among the processes that share the directory (it is in stream and request ids). */
  readonly nodeId: string;
  /** The event store every process shares: the handler records every stream in it. */
  readonly eventStore: EventStore;
  /** Counts listen streams per principal over every process (optional: else each process counts its own). */
  readonly listenLeases?: ListenLeases;
  /** Counts each caller's requests for `rateLimit` over every process (optional: else each process counts its own). */
  readonly requestCounts?: SharedRequestCounts;
  /**
   * Called once, by the handler that uses the directory, before it serves anything, with its sessions' settings
   * (the server it serves, whose `resourceUpdated` a directory may share; the clock; the idle timeout).
   */
  bind(settings: LegacySettings): void;
  /**
   * Makes a stream of a shared session (the constructor's arguments are `Stream`'s): one that writes its events in
   * index order whichever process recorded them, and tells the others what it records.
   */
  stream(...args: ConstructorParameters<typeof Stream>): Stream;
  /** Why the shared state cannot be reached now (every request gets a 503 saying so), or undefined. Cheap. */
  unavailable(): string | undefined;
  /**
   * Shares a session that just initialized in this process and makes `transport` its replica here; the answer
   * to initialize waits for this, and the session is dropped when it rejects.
   */
  register(transport: StreamableServerTransport): Promise<void>;
  /** A session this process does not hold, as shared; undefined when none has this id (ended, expired, never was). */
  load(sessionId: string): Promise<SharedSession | undefined>;
  /** Makes `transport`, built here from what `load` answered, a replica of that session. */
  adopt(transport: StreamableServerTransport, shared: SharedSession): void;
  /** Ends a session in every process (DELETE): its record and its events are deleted, every replica closes. */
  remove(transport: StreamableServerTransport): Promise<void>;
}

/**
 * What a session transport tells the directory about its session, when several processes serve it. Every call
 * returns at once; what needs the shared state runs in the background and reports its failures to `onerror`,
 * except `share`, whose answer the client waits for.
 */
export interface SessionReplica {
  /** A POST or GET of the session arrived here: the session is alive (refreshed in the shared state, throttled). */
  active(): void;
  /**
   * A request that changes the session's state (logging/setLevel, resources/subscribe, resources/unsubscribe)
   * succeeded here: the change is shared, and the other processes holding the session have applied it (or are gone,
   * or a bound passed), before its answer leaves, so that the client's next request sees it wherever it lands; or
   * this rejects, and nothing changed.
   */
  share(request: JsonRpcRequest): Promise<void>;
  /**
   * A message the client sent for a request another process waits for (the response to a server-to-client
   * request, or progress about it): true when it was sent there and must not be delivered here.
   */
  forward(message: JsonRpcMessage): boolean;
  /**
   * The client answered request `id` with a message that is no valid JSON-RPC response, for reason `problem`: true
   * when another process made that request and was told, so that it fails there (`Receiver.invalidAnswer`).
   */
  failAnswer(id: RequestId, problem: string): boolean;
  /** The process `forward` would send this message to; undefined when it is for this one (or for none). */
  elsewhere(message: JsonRpcMessage): string | undefined;
  /** The client cancelled a request that does not run in this process: the process running it must hear it. */
  cancel(notification: JsonRpcNotification): void;
  /** A response of this process now carries `stream`: a response elsewhere that carried it ends. */
  held(stream: Stream): void;
  /** This process recorded events of `stream` up to `index` (and closed it when `closed`). */
  recorded(stream: Stream, index: number, closed: boolean): void;
  /** True when a process opened the session's standalone GET stream: messages for it are recorded here too. */
  readonly standaloneOpen: boolean;
  /** The replica here ended, for whatever reason; the session goes on in the other processes. */
  closed(): void;
}
