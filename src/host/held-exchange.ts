import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { InputRequests, InputResponses } from '../protocol/modern-types.js';
import type { LoggingLevel, Result } from '../protocol/types.js';
import type { ServerContext } from '../server/context.js';
import type { InputRequired } from '../server/input-required.js';
import { DONE } from '../util/done.js';
import { randomBytesPooled } from '../util/random-pool.js';

/** What one round of a forwarded request ends with: the child's answer, or what the child asks of the client. */
export type RoundOutcome = { readonly result: Result } | { readonly inputRequests: InputRequests };

/**
 * The client request a round of a held exchange serves now: where the child's progress and log messages go (the
 * request's context, or, when the round was asked for by another process, that process; see ClusterRounds).
 */
export interface RoundClient {
  sendProgress(progress: number, total?: number, message?: string): Promise<void>;
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
}

interface Ask {
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  resolve(answer: Record<string, unknown>): void;
  reject(err: Error): void;
}

/** How many of the progress and log messages a child sends between rounds are kept for the next (the latest). */
export const KEPT_BETWEEN_ROUNDS = 64;

const noop = () => {};

/**
 * One client request forwarded to a child, held across the rounds in which the child asks the client something
 * (sampling, elicitation). Re-running a forwarded request would call the child twice, so the request to the child
 * is made once, and each round hands the client what the child asked (`input_required`, with this exchange's id
 * as the sealed state), then gives the child the client's answers from the retry. The child's request waits
 * meanwhile; a retry that does not come within the bound releases it with an error.
 *
 * It is the round client of the child's request: its progress and log messages go to the round being served.
 * Those it sends after a round ended with its asks, whose response is closed, go to the next round ahead of its
 * outcome (the latest KEPT_BETWEEN_ROUNDS of them).
 */
export class HeldExchange implements RoundClient {
  private key: string | undefined;
  /** The round being served now; undefined between a round that ended and the next. */
  private client: RoundClient | undefined;
  /** What the child told between rounds, in order. */
  private kept: Array<(client: RoundClient) => Promise<void>> | undefined;
  private readonly controller = new AbortController();
  private outcome: { result: Result } | { error: unknown } | undefined;
  private readonly asks = new Map<string, Ask>();
  /** Keys handed to the client and not answered yet. */
  private readonly sent = new Set<string>();
  private nextKey = 0;
  private wake: (() => void) | undefined;

  constructor(
    client: RoundClient,
    /** Begins its id: the process holding it, in a cluster (see HeldExchanges). */
    private readonly idPrefix: string,
    start: (exchange: HeldExchange, signal: AbortSignal) => Promise<Result>,
  ) {
    this.client = client;
    start(this, this.controller.signal).then(
      (result) => this.settle({ result }),
      (error) => this.settle({ error }),
    );
  }

  /** Its name in the sealed state, drawn when it is first held: most forwarded requests never are. */
  get id(): string {
    this.key ??= this.idPrefix + randomBytesPooled(16).toString('base64url');
    return this.key;
  }

  /** Aborted when the exchange is given up: the request to the child is cancelled. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The child asks the client something: resolves with the client's answer from a later round. */
  ask(method: string, params: Record<string, unknown> | undefined): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      this.asks.set(`c${this.nextKey++}`, { method, params, resolve, reject });
      this.wake?.();
    });
  }

  sendProgress(progress: number, total?: number, message?: string): Promise<void> {
    return this.tell((client) => client.sendProgress(progress, total, message));
  }

  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    return this.tell((client) => client.log(level, data, logger));
  }

  /** The round's client hears nothing more (the round ended with what the child asks): what it tells is kept. */
  roundEnded(): void {
    this.client = undefined;
  }

  /**
   * The next round, served to `client` with the retry's answers (by the keys the last round handed out; a key
   * left unanswered fails the child's request): first what the child told while held.
   */
  resume(client: RoundClient, responses: InputResponses | undefined): void {
    this.client = client;
    const kept = this.kept;
    this.kept = undefined;
    if (kept !== undefined) for (const told of kept) told(client).catch(noop);
    this.answer(responses);
  }

  private tell(told: (client: RoundClient) => Promise<void>): Promise<void> {
    const client = this.client;
    if (client !== undefined) return told(client);
    this.kept ??= [];
    if (this.kept.length === KEPT_BETWEEN_ROUNDS) this.kept.shift();
    this.kept.push(told);
    return DONE;
  }

  private answer(responses: InputResponses | undefined): void {
    for (const key of this.sent) {
      const ask = this.asks.get(key)!;
      this.asks.delete(key);
      const answer = responses?.[key];
      if (answer === undefined) {
        ask.reject(new McpError(ErrorCode.InvalidParams, `The client did not answer ${ask.method}`));
      } else ask.resolve(answer as Record<string, unknown>);
    }
    this.sent.clear();
  }

  /**
   * What ends this round: the child's result (or its error, thrown), or its asks not yet handed out, gathered
   * over one turn so that asks made together go out in one round.
   */
  async next(): Promise<RoundOutcome> {
    for (;;) {
      if (this.outcome !== undefined) {
        if ('error' in this.outcome) throw this.outcome.error;
        return { result: this.outcome.result };
      }
      if (this.asks.size > this.sent.size) {
        await new Promise((resolve) => setImmediate(resolve));
        const inputRequests: InputRequests = {};
        for (const [key, ask] of this.asks) {
          if (this.sent.has(key)) continue;
          this.sent.add(key);
          inputRequests[key] = { method: ask.method, params: ask.params } as InputRequests[string];
        }
        return { inputRequests };
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
  }

  /** Fails one ask of the round being prepared (the client cannot answer it): the child hears `reason`. */
  refuse(key: string, reason: string): void {
    const ask = this.asks.get(key);
    if (ask === undefined) return;
    this.asks.delete(key);
    this.sent.delete(key);
    ask.reject(new McpError(ErrorCode.InternalError, reason));
  }

  /** Gives the exchange up: what the child still asks fails, and its request is cancelled. */
  release(reason: string): void {
    this.kept = undefined;
    for (const ask of this.asks.values()) ask.reject(new McpError(ErrorCode.InternalError, reason));
    this.asks.clear();
    this.sent.clear();
    this.controller.abort(new Error(reason));
  }

  private settle(outcome: { result: Result } | { error: unknown }): void {
    this.outcome = outcome;
    this.wake?.();
  }
}

/** Where a retry continues an exchange that another process of a cluster holds (see ClusterRounds). */
export interface RemoteRounds {
  /** Serves the round of the exchange `id` held by process `node` for the retry whose context is `ctx`. */
  round(node: string, id: string, method: string, ctx: ServerContext): Promise<Result | InputRequired>;
}

/**
 * The exchanges waiting for a client's retry, by id, each released after `holdMs` without one; at most `max`
 * (the oldest is released to make room). In a cluster (`nodeId`), an id begins with the process holding it, so
 * that a retry reaching another process is served by this one through `remote`.
 */
export class HeldExchanges {
  private readonly held = new Map<string, { exchange: HeldExchange; timer: NodeJS.Timeout }>();
  /** What each id this process draws begins with. */
  readonly idPrefix: string;
  readonly remote: RemoteRounds | undefined;

  constructor(
    private readonly holdMs: number,
    private readonly max: number,
    cluster?: { readonly nodeId: string; readonly remote: RemoteRounds },
  ) {
    this.idPrefix = cluster === undefined ? '' : `${cluster.nodeId}.`;
    this.remote = cluster?.remote;
  }

  /** The process that holds exchange `id`, when it is another one. */
  holderOf(id: string): string | undefined {
    if (this.remote === undefined || id.startsWith(this.idPrefix)) return undefined;
    const dot = id.indexOf('.');
    return dot > 0 ? id.slice(0, dot) : undefined;
  }

  /** Keeps `exchange` until its retry comes or `holdMs` passes. */
  hold(exchange: HeldExchange): void {
    if (this.held.size >= this.max) {
      const [oldest] = this.held.keys();
      this.take(oldest!)?.release(
        'the bridge holds too many requests waiting for their clients: the oldest was released',
      );
    }
    const timer = setTimeout(() => {
      this.take(exchange.id)?.release(
        `the client did not send the retry of this request within ${this.holdMs} ms: the request was released`,
      );
    }, this.holdMs);
    timer.unref();
    this.held.set(exchange.id, { exchange, timer });
  }

  /** The exchange a retry continues, no longer held (it is being served); undefined when it was released. */
  take(id: string): HeldExchange | undefined {
    const entry = this.held.get(id);
    if (entry === undefined) return undefined;
    clearTimeout(entry.timer);
    this.held.delete(id);
    return entry.exchange;
  }

  /** Releases every exchange held. */
  releaseAll(reason: string): void {
    for (const id of [...this.held.keys()]) this.take(id)?.release(reason);
  }
}
