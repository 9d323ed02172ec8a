import type { EventStore } from '../../../eventstore/event-store.js';
import type { HTTPExchange } from '../../../http/exchange.js';
import { ErrorCode, errorResponse } from '../../../jsonrpc/errors.js';
import { serialize } from '../../../jsonrpc/serialize.js';
import type { JsonRpcMessage, JsonRpcRequest, JsonRpcResponse, RequestId } from '../../../jsonrpc/types.js';
import { type Connection, type Receiver, SENT } from '../../../peer/connection.js';
import { ConnectionClosedError } from '../../../peer/errors.js';
import { DONE } from '../../../util/done.js';
import { SmallMap } from '../../../util/small-map.js';
import { without } from '../../../util/without.js';
import { StreamUnavailableError } from '../errors.js';
import type { LegacySettings } from './legacy-settings.js';
import type { SessionReplica } from './session-directory.js';
import { Stream } from './stream.js';
import type { StreamKind, StreamOwner } from './stream-owner.js';

const NONE: readonly Stream[] = [];

/** What the connection needs from the session transport that owns it (see `StreamableServerTransport`). */
export interface ConnOwner {
  /** What every session of the endpoint shares. */
  readonly settings: LegacySettings;
  /** The session's event store: the endpoint's, or undefined in stateless mode (nothing is resumed). */
  readonly store: EventStore | undefined;
  readonly sessionId: string | undefined;
  readonly stateless: boolean;
  /** Whether the session negotiated a version whose SSE streams start with a priming event. */
  readonly primes: boolean;
  readonly principalName: string | undefined;
  /** Several processes serve the session: its shared state and streams outlive this connection. */
  readonly shared: boolean;
  /** In a shared session, what the other processes must hear of (undefined until the session is registered). */
  readonly replica: SessionReplica | undefined;
  /** A request of the session was answered, or cancelled by the client. */
  requestEnded(): void;
  /** The standalone GET stream lost its response. */
  getReleased(): void;
  /** How responses still open end when the session closes: status, message, and whether to add a retry hint. */
  closing(): { status: number; message: string; retry: boolean };
  /** The connection closed: the session is over. */
  connClosed(): void;
}

/**
 * The session's Connection: it routes each outgoing message to a
 * stream. A response goes to the stream that carried its request; a request or notification sent while
 * handling a request (`related`) goes to that request's stream; everything else goes to the standalone
 * GET stream. In JSON-response mode a request's answer is its one JSON body, so related requests and
 * notifications go to the GET stream too, and that answer waits until they have left (`Stream.relayedOn`), for
 * `RELAY_WAIT_MS` at most.
 *
 * When no stream can carry a message, a request rejects at once with `StreamUnavailableError` (it must
 * never wait for an answer that cannot come); a related notification is dropped and the error goes to
 * `onerror`; an unrelated notification (e.g. a list change) is dropped quietly, since the client chose
 * not to listen. Closing ends every open response and tells the event store `sessionClosed`.
 *
 * In a session several processes serve (`ConnOwner.shared`), the GET stream may be held by another process:
 * messages for it are recorded here all the same, and that process writes them. A response to a request that
 * changes the session's state (`stateRequests`) leaves once the change is shared. Closing a replica leaves
 * the store alone: the session goes on elsewhere.
 */
export class StreamableServerConn implements Connection, StreamOwner {
  readonly settings: LegacySettings;
  receiver: Receiver | undefined;
  /** The live stream that owes the response to each request in flight; absent while none is (`without`). */
  private byRequest: SmallMap<RequestId, Stream> | undefined;
  /** Live streams by id, for resumption, the standalone one included once opened; absent while none is. */
  private live: SmallMap<string, Stream> | undefined;
  /** The standalone GET stream, once the client has opened it. */
  standalone: Stream | undefined;
  /** Shared sessions: requests in flight that change the session's state, by id; created on the first. */
  stateRequests: Map<RequestId, JsonRpcRequest> | undefined;
  private nextStream = 1;
  private isClosed = false;

  constructor(
    private readonly owner: ConnOwner,
    /** Random per session, so that a Last-Event-ID from another session never names a stream of this one. */
    readonly streamPrefix: string,
    /** What the ids of POST streams start with: the session's prefix, and in a shared session this process's. */
    private readonly postPrefix: string = streamPrefix,
  ) {
    this.settings = owner.settings;
  }

  get sessionId(): string | undefined {
    return this.owner.sessionId;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  start(receiver: Receiver): void {
    this.receiver = receiver;
  }

  send(message: JsonRpcMessage, related?: RequestId): Promise<void> {
    if (this.isClosed) return Promise.reject(new ConnectionClosedError('Session is closed'));
    let data: string;
    try {
      data = serialize(message);
    } catch (err) {
      return Promise.reject(err);
    }
    if (!('method' in message)) {
      this.respond(message, data);
      return SENT;
    }
    const isRequest = 'id' in message;
    const owner = this.owner;
    if (isRequest && owner.stateless) {
      return Promise.reject(
        new StreamUnavailableError(message.method, 'stateless', owner.settings.jsonResponse),
      );
    }
    let stream = related === undefined ? undefined : this.byRequest?.get(related);
    if (stream === undefined || stream.jsonMode) {
      const origin = stream;
      stream = this.standalone;
      if (stream === undefined && owner.replica?.standaloneOpen === true) stream = this.openStandalone();
      // Without a store, a GET stream with no response attached cannot keep a message for later. (`held` is asked
      // first: a broadcast to held streams then never reads the transport, one object less per session.)
      if (stream !== undefined && !stream.held && owner.store === undefined) stream = undefined;
      // The JSON answer of the request must not overtake what was sent while it ran.
      if (origin !== undefined && stream !== undefined) origin.relayedOn(stream);
    }
    if (stream === undefined) {
      // A server-wide notification to a session with no GET stream is dropped unheard: no error is built for it,
      // since capturing a stack costs more than the rest of the send (`Server.log` reaches every session).
      if (!isRequest && related === undefined) return SENT;
      const err = new StreamUnavailableError(message.method, 'no-get-stream', owner.settings.jsonResponse);
      if (isRequest) return Promise.reject(err);
      owner.settings.report(err);
      return SENT;
    }
    stream.send(data);
    return SENT;
  }

  close(): Promise<void> {
    if (this.isClosed) return DONE;
    this.isClosed = true;
    const { status, message, retry } = this.owner.closing();
    const live = this.live;
    this.live = undefined;
    this.byRequest = undefined;
    if (live !== undefined) for (const stream of live.values()) stream.end(status, message, retry);
    this.standalone = undefined;
    const store = this.owner.store;
    const sessionId = this.owner.sessionId;
    let pending: Promise<void> | undefined;
    if (store !== undefined && sessionId !== undefined && !this.owner.shared) {
      try {
        const r = store.sessionClosed(sessionId);
        if (r instanceof Promise) pending = r.catch((err) => this.owner.settings.report(err));
      } catch (err) {
        this.owner.settings.report(err);
      }
    }
    this.owner.connClosed();
    this.receiver?.closed();
    return pending ?? DONE;
  }

  /** A new stream for the answers to one POST (one or more requests), `post`; `json`: answered with one JSON body. */
  openRequestStream(post: HTTPExchange, batch: boolean, json: boolean): Stream {
    const stream = this.newStream(this.postPrefix + this.nextStream++, json, batch, 'post', post);
    this.track(stream);
    return stream;
  }

  /** The standalone GET stream, opened on first use. Its id is the session's stream prefix and `0`. */
  openStandalone(): Stream {
    let stream = this.standalone;
    if (stream === undefined) {
      stream = this.newStream(`${this.streamPrefix}0`, false, false, 'get');
      this.standalone = stream;
      this.track(stream);
    }
    return stream;
  }

  /**
   * Shared sessions: the stream a resumed GET continues when this process does not write it: the GET stream,
   * which any process may write, or a follower of a stream another process writes.
   */
  resumable(streamId: string): Stream {
    if (streamId === `${this.streamPrefix}0`) return this.openStandalone();
    const stream = this.newStream(streamId, false, false, 'follower');
    this.track(stream);
    return stream;
  }

  /** The live stream with this id, if any. */
  stream(streamId: string): Stream | undefined {
    return this.live?.get(streamId);
  }

  /** Every live stream. */
  streams(): Iterable<Stream> {
    return this.live?.values() ?? NONE;
  }

  /** Whether a request with this id is in flight (its answer is owed). */
  owes(id: RequestId): boolean {
    return this.byRequest?.has(id) === true;
  }

  /** `stream` owes the answer to request `id`. */
  expect(id: RequestId, stream: Stream): void {
    if (this.byRequest === undefined) this.byRequest = new SmallMap(id, stream);
    else this.byRequest.set(id, stream);
  }

  /** The client cancelled request `id`: its stream stops waiting for an answer that will not come. */
  cancelled(id: RequestId): boolean {
    const stream = this.byRequest?.get(id);
    if (stream === undefined) return false;
    this.byRequest = without(this.byRequest!, id);
    this.stateRequests?.delete(id);
    stream.forget();
    this.owner.requestEnded();
    return true;
  }

  private respond(message: JsonRpcResponse, data: string): void {
    const id = message.id;
    const stream = id === null ? undefined : this.byRequest?.get(id);
    // No stream: the request was cancelled (its late answer is dropped), or the answer has no id.
    if (stream === undefined) return;
    this.byRequest = without(this.byRequest!, id!);
    if (this.stateRequests !== undefined) {
      const request = this.stateRequests.get(id!);
      if (request !== undefined) {
        this.stateRequests.delete(id!);
        if ('result' in message) {
          this.shareThenRespond(request, stream, data);
          return;
        }
      }
    }
    stream.respond(data);
    this.owner.requestEnded();
  }

  /** Shared sessions: the answer to a state change leaves once the other processes have it, or says it failed. */
  private shareThenRespond(request: JsonRpcRequest, stream: Stream, data: string): void {
    this.owner.replica!.share(request).then(
      () => this.respondLater(stream, data),
      (err) => {
        this.owner.settings.report(err);
        const failed = errorResponse(request.id, {
          code: ErrorCode.InternalError,
          message: `${request.method} could not be shared with the other server processes, so nothing changed: ${
            (err as Error)?.message ?? String(err)
          }`,
        });
        this.respondLater(stream, serialize(failed));
      },
    );
  }

  private respondLater(stream: Stream, data: string): void {
    if (this.isClosed) return;
    stream.respond(data);
    this.owner.requestEnded();
  }

  /** A stream of this session: made by the directory when several processes serve the session. */
  private newStream(
    id: string,
    json: boolean,
    batch: boolean,
    kind: StreamKind,
    post?: HTTPExchange,
  ): Stream {
    const directory = this.owner.shared ? this.owner.settings.directory : undefined;
    return directory === undefined
      ? new Stream(this, id, json, batch, kind, post)
      : directory.stream(this, id, json, batch, kind, post);
  }

  private track(stream: Stream): void {
    if (this.live === undefined) this.live = new SmallMap(stream.id, stream);
    else this.live.set(stream.id, stream);
  }

  // ---- StreamOwner: what every stream of the session shares ----

  get store(): EventStore | undefined {
    return this.owner.store;
  }

  get storeKey(): string {
    return this.owner.sessionId!;
  }

  get primes(): boolean {
    return this.owner.primes;
  }

  get principalName(): string | undefined {
    return this.owner.principalName;
  }

  held(stream: Stream): void {
    this.owner.replica?.held(stream);
  }

  recorded(stream: Stream, index: number, closed: boolean): void {
    this.owner.replica?.recorded(stream, index, closed);
  }

  report(err: unknown): void {
    this.owner.settings.report(err);
  }

  streamFinished(stream: Stream): void {
    if (this.live?.get(stream.id) === stream) this.live = without(this.live, stream.id);
  }

  writerReleased(stream: Stream): void {
    if (stream === this.standalone) this.owner.getReleased();
  }
}
