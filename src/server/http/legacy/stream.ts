import { formatEventId } from '../../../eventstore/event-id.js';
import type { MaybePromise } from '../../../eventstore/event-store.js';
import { StoreUnavailableError } from '../../../eventstore/store-unavailable-error.js';
import type { HTTPExchange } from '../../../http/exchange.js';
import { writeJsonError } from '../../../http/json-error.js';
import { SSEWriter, sendSseBody } from '../../../http/sse-writer.js';
import { ErrorCode, errorResponse } from '../../../jsonrpc/errors.js';
import { serialize } from '../../../jsonrpc/serialize.js';
import type { RequestId } from '../../../jsonrpc/types.js';
import type { MessageInfo } from '../../../peer/connection.js';
import { systemClock } from '../../../util/clock.js';
import { eventFrame, primeFrame, sseFrame } from './event-frames.js';
import { JsonBody } from './json-body.js';
import { runInOrder, StoreSteps } from './store-steps.js';
import type { StreamKind, StreamOwner } from './stream-owner.js';
import { type RecordSink, StreamRecord } from './stream-record.js';

/**
 * One logical stream of a session: the answers to one POST, or the standalone GET stream.
 * It may span several HTTP responses: at most one carries it at a time, and a resumed GET replaces it.
 *
 * Promises: each message is serialized once by the caller and handed here as that string; with an
 * event store it is recorded first (the record is that string) and goes out as one `id:`/`data:` frame
 * in one write; events go out in the order they were sent, also with a store that answers with
 * promises; a POST stream finishes (its response ends, the store hears `streamClosed`) when the last
 * response it owes has been sent. In JSON-response mode the stream gathers its responses and writes
 * them as one JSON body, after the messages relayed to the GET stream for its requests have left (or
 * `RELAY_WAIT_MS`, when its reader stopped reading).
 *
 * A stream is also the `MessageInfo` of the requests it carries when it can be resumed, so that
 * `ctx.transport.closeStream()` needs no closure of its own.
 *
 * A session served by several processes has streams its `SessionDirectory` makes (`SharedStream`, in
 * src/cluster): they override the hooks (`deliver`, `attached`, `resumed`, `finish`) to write events in index
 * order whichever process recorded them.
 */
export class Stream implements MessageInfo, RecordSink {
  /** Responses still owed; the stream finishes when the last one is sent. */
  owed = 0;
  /** The request of a single-request POST, to name in an error if the session ends first. */
  requestId: RequestId | undefined;
  /**
   * The GET stream in JSON-response mode: an answer waited `RELAY_WAIT_MS` for its reader, whose buffered bytes
   * have not all left since. Answers then do not wait for it at all.
   */
  stalled = false;
  protected writer: SSEWriter | undefined;
  /** JSON-response mode: the answers, written as one body. */
  private readonly json: JsonBody | undefined;
  /** False until the POST's response begins: frames wait in `backlog` so that headers can still change. */
  started: boolean;
  private backlog: string | undefined;
  protected finished = false;
  /** `closeStream` was called before the response began. */
  private detachAtStart = false;
  /**
   * The current response got the events up to this index by replay: live ones up to it are skipped. In a shared
   * session, the last index the current response got, whoever recorded it (UNSET: none yet).
   */
  protected floor = -1;
  /** What waits for the store's answers, in order; made on first need: a store that answers at once needs none. */
  private queue: StoreSteps | undefined;
  /** The stream's events in the event store; undefined when streams cannot be resumed. */
  private readonly record: StreamRecord | undefined;
  /** The standalone GET stream, whose responses are attached as they come. */
  readonly standalone: boolean;
  /** Shared sessions: another process writes the stream; this one only follows it for a resumed GET. */
  readonly follower: boolean;

  constructor(
    protected readonly owner: StreamOwner,
    /** The stream id in event ids (`<id>_<index>`): visible ASCII, unique in the session. */
    readonly id: string,
    /** Answers go out as one JSON body (JSON-response mode) instead of SSE. */
    readonly jsonMode: boolean,
    /** A batch POST: a JSON answer is an array. */
    batch: boolean,
    kind: StreamKind,
    /** The POST that opened the stream; undefined for the others. */
    private readonly post?: HTTPExchange,
  ) {
    this.standalone = kind === 'get';
    this.follower = kind === 'follower';
    this.started = kind !== 'post';
    // A JSON answer is one body, never recorded: its stream needs no record.
    this.record = owner.store === undefined || jsonMode ? undefined : new StreamRecord(owner, id, this);
    this.json = jsonMode ? new JsonBody(batch) : undefined;
  }

  /** Index of the last event recorded in the store. */
  get lastIndex(): number {
    return this.record === undefined ? -1 : this.record.lastIndex;
  }

  /** The stream was opened in the event store. */
  protected get opened(): boolean {
    return this.record?.opened === true;
  }

  get principal(): string | undefined {
    return this.owner.principalName;
  }

  /** The scopes of the access token of the POST that carried the requests. */
  get scopes(): readonly string[] | undefined {
    return this.post?.scopes;
  }

  /** The headers of the POST that carried the requests, read only when a handler asks. */
  get headers(): Readonly<Record<string, string>> | undefined {
    return this.post?.headers;
  }

  /** True while an HTTP response carries the stream. */
  get held(): boolean {
    return this.writer !== undefined && !this.writer.closed;
  }

  get isFinished(): boolean {
    return this.finished;
  }

  /**
   * Sends one serialized request or notification on the stream. With an event store it is recorded at once (a
   * store answering with promises gets every call in call order, without waiting for the previous answer), and
   * its frame goes out once it is recorded and every earlier frame has gone.
   */
  send(data: string): void {
    if (this.finished) return;
    // A GET stream opened by a message, not by a response here (shared sessions): no priming event.
    if (this.record !== undefined) this.record.append(data, !this.standalone);
    else this.emit(sseFrame(data));
  }

  /** Sends one serialized response the stream owes; the stream finishes after the last one. */
  respond(data: string): void {
    const json = this.json;
    if (json !== undefined) {
      json.add(data);
      if (--this.owed === 0 && json.waiting) this.answer();
      return;
    }
    this.send(data);
    if (--this.owed === 0) this.finishInOrder();
  }

  /** JSON-response mode: messages sent while this stream's requests ran went on `relay` (the GET stream). */
  relayedOn(relay: Stream): void {
    this.json!.relay = relay;
  }

  /** A request the stream owed was cancelled by the client: no response will come for it. */
  forget(): void {
    if (--this.owed > 0) return;
    if (this.json === undefined) this.finishInOrder();
    else if (this.json.waiting) this.answer();
  }

  /**
   * Begins the POST's response once its messages were delivered (so a synchronous answer leaves with
   * the head): one JSON body, or an SSE stream that starts with the priming event when there is one.
   */
  begin(exchange: HTTPExchange, headers?: Readonly<Record<string, string>>): void {
    if (this.json !== undefined) {
      this.json.begin(exchange, headers);
      if (this.owed === 0) this.answer();
      return;
    }
    if (this.record !== undefined && !this.record.opened) {
      let recorded: MaybePromise<unknown>;
      try {
        recorded = this.record.open(true);
      } catch (err) {
        // The store refused at once: the response goes out live, without ids.
        this.owner.settings.report(err);
        recorded = undefined;
      }
      if (recorded instanceof Promise) {
        // The response begins once the stream is recorded, or is an HTTP error if it cannot be.
        this.steps().after(
          recorded,
          () => this.start(exchange, headers),
          (err) => this.startFailed(exchange, err),
        );
        return;
      }
    }
    runInOrder(this.queue, () => this.start(exchange, headers));
  }

  /** Attaches a new GET response to the standalone stream; a previous one is ended with a retry hint. */
  attach(exchange: HTTPExchange): void {
    this.replaceWriter(new SSEWriter(exchange, this.owner.settings.writerOptions), exchange);
    this.attached();
    const record = this.record;
    if (record === undefined) return;
    try {
      if (record.opened) record.prime();
      else record.open(true);
    } catch (err) {
      this.owner.settings.report(err);
    }
  }

  /**
   * Continues the stream on a resumed GET whose replay already sent the events up to index `upTo`; ends
   * it at once if the stream finished meanwhile.
   */
  resume(writer: SSEWriter, exchange: HTTPExchange, upTo: number): void {
    this.started = true;
    this.floor = upTo;
    this.replaceWriter(writer, exchange);
    if (this.finished) this.closeWriter();
    else this.resumed(upTo);
  }

  /** A GET response now carries the stream (shared sessions do more). */
  protected attached(): void {}

  /** A resumed GET, which replayed the events up to `upTo`, now carries the stream (shared sessions do more). */
  protected resumed(_upTo: number): void {}

  /**
   * SEP-1699 polling: ends the HTTP response now, with a retry hint, but not the stream: later events are
   * recorded and the client resumes with GET and Last-Event-ID. A no-op without an event store, where
   * ending the response would lose them.
   */
  closeStream(): void {
    if (this.jsonMode || this.owner.store === undefined || this.finished) return;
    runInOrder(this.queue, () => this.detach());
  }

  /**
   * Ends the response carrying the stream because its session is closing: an SSE stream with a retry hint
   * when `retry`; an owed single request is answered with a JSON-RPC error saying `message`.
   */
  end(status: number, message: string, retry: boolean): void {
    if (this.finished) return;
    // Every answer is in and only waits for relayed messages to leave: it goes out now.
    const json = this.json;
    if (json?.waiting && this.owed === 0) {
      this.writeJson();
      return;
    }
    this.finished = true;
    const id = this.owed === 1 ? this.requestId : undefined;
    if (json?.waiting) {
      json.fail(status, message, id);
      return;
    }
    const w = this.writer;
    if (w === undefined) return;
    if (id !== undefined) {
      w.frame(sseFrame(serialize(errorResponse(id, { code: ErrorCode.ConnectionClosed, message }))));
    }
    if (retry) w.retry(this.owner.settings.retryMs);
    this.closeWriter();
  }

  /**
   * Undefined when every message sent on the stream so far has been handed on, or no response carries the
   * stream (with an event store the client gets them when it resumes); otherwise a promise that resolves
   * once they have been, or the response ended. Never rejects.
   */
  flushed(): Promise<void> | undefined {
    // Only the steps queued so far: later messages must not hold back whoever waits.
    const tail = this.queue?.pending;
    if (tail === undefined) return this.writer?.flushed();
    return tail.then(() => this.writer?.flushed());
  }

  // ---- internals ----

  /** @internal No step waits for the store's answer: the next one may run at once. */
  get stepsIdle(): boolean {
    return this.queue === undefined || this.queue.idle;
  }

  /** @internal The queue of what waits for the store's answers, made on first need. */
  steps(): StoreSteps {
    this.queue ??= new StoreSteps(this.owner.settings.report);
    return this.queue;
  }

  /** @internal The store refused the event: it still goes out live, without an id (it cannot be resumed). */
  unrecorded(data: string, err: unknown): void {
    this.owner.settings.report(err);
    this.emit(sseFrame(data));
  }

  /** @internal Writes event `index`, recorded here (the priming event when `priming`), unless the response got it by replay. */
  deliver(index: number, data: string, priming: boolean): void {
    const id = formatEventId(this.id, index);
    if (priming) this.emit(primeFrame(id, this.owner.settings.retryMs));
    else if (index > this.floor) this.emit(eventFrame(id, data));
  }

  /** Writes a frame to the current response, or keeps it until the response begins. */
  protected emit(frame: string): void {
    if (!this.started) {
      this.backlog = this.backlog === undefined ? frame : this.backlog + frame;
      return;
    }
    this.writer?.frame(frame);
  }

  private start(exchange: HTTPExchange, headers: Readonly<Record<string, string>> | undefined): void {
    if (this.finished && this.backlog !== undefined) {
      // Answered before its response began (a synchronous tool): the frames are the whole body.
      this.started = true;
      sendSseBody(exchange, this.backlog, headers);
      this.backlog = undefined;
      return;
    }
    const options = this.owner.settings.writerOptions;
    const writer = new SSEWriter(exchange, headers === undefined ? options : { ...options, headers });
    this.started = true;
    this.replaceWriter(writer, exchange);
    if (this.backlog !== undefined) {
      writer.frame(this.backlog);
      this.backlog = undefined;
    }
    if (this.finished) this.closeWriter();
    else if (this.detachAtStart) this.detach();
  }

  /** The store failed before the response began: the client gets an HTTP error, not a stream that never starts. */
  private startFailed(exchange: HTTPExchange, err: unknown): void {
    this.owner.settings.report(err);
    if (this.finished) return;
    this.finished = true;
    this.owner.streamFinished(this);
    const unavailable = err instanceof StoreUnavailableError;
    writeJsonError(
      exchange,
      unavailable ? 503 : 500,
      `${unavailable ? 'Service Unavailable' : 'Internal error'}: the stream of this request could not be recorded ` +
        `for resumption: ${(err as Error)?.message ?? String(err)}`,
      { id: this.owed === 1 ? (this.requestId ?? null) : null, code: ErrorCode.InternalError },
    );
  }

  private replaceWriter(writer: SSEWriter, exchange: HTTPExchange): void {
    const old = this.writer;
    this.writer = writer;
    exchange.onClose(() => {
      if (this.writer === writer) this.writer = undefined;
      this.owner.writerReleased(this);
    });
    if (old !== undefined && !old.closed) {
      // The old response is stale (e.g. its client vanished behind a proxy) or a second reader: it is
      // told to wait before reconnecting, and every message goes to one response only.
      old.retry(this.owner.settings.retryMs);
      old.close();
    }
  }

  private detach(): void {
    if (!this.started) {
      this.detachAtStart = true;
      return;
    }
    const w = this.writer;
    if (w === undefined) return;
    this.writer = undefined;
    w.retry(this.owner.settings.retryMs);
    w.close();
  }

  protected closeWriter(): void {
    const w = this.writer;
    this.writer = undefined;
    w?.close();
  }

  /** Finishes the stream once every frame before has gone and the store has closed it (when it was recorded). */
  private finishInOrder(): void {
    if (this.record?.opened) this.record.close((closed) => this.finish(closed));
    else runInOrder(this.queue, () => this.finish(true));
  }

  /** Ends the stream and its response; `closedInStore`: the store has marked it closed. */
  protected finish(_closedInStore: boolean): void {
    if (this.finished) return;
    this.finished = true;
    this.owner.streamFinished(this);
    if (this.started) this.closeWriter();
  }

  /** Writes the JSON answer, after the messages relayed to the GET stream for these requests (relay-order.ts). */
  private answer(): void {
    const json = this.json!;
    if (json.relay === undefined) this.writeJson();
    else json.afterRelay(this.owner.settings.writerOptions.clock ?? systemClock, () => this.writeJson());
  }

  private writeJson(): void {
    const json = this.json!;
    // The session closed while the answer waited, and `end` sent it.
    if (!json.waiting) return;
    this.finished = true;
    this.owner.streamFinished(this);
    json.write();
  }
}
