import type { ClusterMessaging } from '../cluster/direct-messages.js';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { Params } from '../jsonrpc/types.js';
import type { InputRequests, InputResponses } from '../protocol/modern-types.js';
import type { ClientCapabilities, LoggingLevel, Result } from '../protocol/types.js';
import type { Era } from '../protocol/versions.js';
import type { ServerContext } from '../server/context.js';
import { type InputRequired, inputRequired } from '../server/input-required.js';
import { randomBytesPooled } from '../util/random-pool.js';
import { HolderGone, notHeld, serveRound } from './forward.js';
import type { HeldExchange, HeldExchanges, RemoteRounds, RoundClient } from './held-exchange.js';

const TOPIC = 'mcpwire.bridge.round';
/** How often a process waiting for another's round checks that the other is alive. */
const LIVENESS_CHECK_MS = 2000;

type WireError = { code: number; message: string; data?: unknown };
type WireOutcome =
  | { result: Result }
  | { inputRequests: InputRequests; state: string }
  | { error: WireError };

/** What the client of a round or call declared, as the holder needs it. */
interface Asker {
  r: string;
  by: string;
  method: string;
  era: Era;
  caps: ClientCapabilities;
}

/**
 * What the processes say to each other about bridged requests (`r` names the round or call asked for, on the asking
 * process): a round of a held exchange (`id`), a whole request of an isolated session (`sid`) whose child another
 * process holds, and what such a session did (its roots changed, a subscription).
 */
type Wire =
  | ({ op: 'round'; id: string; responses?: InputResponses } & Asker)
  | ({ op: 'call'; sid: string; params: Params; progress: boolean } & Asker)
  | { op: 'session'; sid: string; change: SessionChange }
  | { op: 'release'; r: string; id?: string; why: string }
  | { op: 'progress'; r: string; p: [number, number | undefined, string | undefined] }
  | { op: 'log'; r: string; l: [LoggingLevel, unknown, string | undefined] }
  | { op: 'done'; r: string; o: WireOutcome };

interface Waiting {
  readonly ctx: ServerContext;
  done(outcome: WireOutcome): void;
}

/** What an isolated session did on a process that does not hold its child. */
export type SessionChange = { roots: true } | { subscribe: string };

/** The isolated sessions whose children this process holds, as ClusterRounds serves them for the others. */
export interface IsolatedHere {
  /** Sends `method` to the child of session `sid`; rejects when it has none here and cannot start one. */
  begin(
    sid: string,
    method: string,
    params: Params,
    client: RoundClient,
    progress: boolean,
  ): Promise<HeldExchange>;
  changed(sid: string, change: SessionChange): void;
}

const noop = () => {};

/**
 * The processes of a cluster serving each other's bridged requests. The child a forwarded request waits in lives in
 * one process, but a 2026 client's retry may reach any: the process it reaches asks the holder (named by the
 * exchange's id) to serve the round with the retry's answers and the client's declared capabilities. Likewise a
 * request of an isolated 2025 session (ClusterIsolation) whose child another process holds is sent there whole
 * (`call`). The asking process hears the child's progress and log messages as they come (and gives them to its
 * request's context), and answers its request with the outcome. A request whose client goes away releases the
 * exchange in the holder; a holder that is gone fails the request, saying to send it anew.
 */
export class ClusterRounds implements RemoteRounds {
  private exchanges: HeldExchanges | undefined;
  private isolated: IsolatedHere | undefined;
  /** Rounds and calls this process asked another for, by `r`. */
  private readonly waiting = new Map<string, Waiting>();
  /** What this process serves for another, by `r` (its client may cancel meanwhile). */
  private readonly serving = new Map<string, { exchange?: HeldExchange; released?: string }>();

  constructor(
    private readonly cluster: ClusterMessaging,
    private readonly report: (message: string) => void,
  ) {
    cluster.direct.on(TOPIC, (body) => this.heard(body as Wire));
  }

  /** What this process serves for the others: the exchanges it holds, and the isolated sessions whose child it has. */
  serve(exchanges: HeldExchanges, isolated?: IsolatedHere): void {
    this.exchanges = exchanges;
    this.isolated = isolated;
  }

  round(node: string, id: string, method: string, ctx: ServerContext): Promise<Result | InputRequired> {
    return this.ask(
      node,
      ctx,
      (r) => ({ op: 'round', id, ...this.asker(r, method, ctx), responses: ctx.inputResponses }),
      () =>
        new McpError(
          ErrorCode.InvalidParams,
          `This retry continues a ${method} held by another server process, which is gone: send the request anew, ` +
            'without requestState',
        ),
    );
  }

  /**
   * Sends `method` of isolated session `sid` to process `node`, which holds its child. Rejects with HolderGone when
   * that process does not listen.
   */
  call(
    node: string,
    sid: string,
    method: string,
    params: Params,
    ctx: ServerContext,
  ): Promise<Result | InputRequired> {
    const progress = ctx.meta?.progressToken !== undefined;
    return this.ask(
      node,
      ctx,
      (r) => ({ op: 'call', sid, ...this.asker(r, method, ctx), params, progress }),
      () => new HolderGone(node),
      () =>
        new McpError(
          ErrorCode.InternalError,
          `The server process ended while answering ${method}: the process of this bridge holding it is gone; send the request again`,
        ),
    );
  }

  /** Tells process `node`, which holds isolated session `sid`'s child, what the session did here. */
  changed(node: string, sid: string, change: SessionChange): void {
    this.send(node, { op: 'session', sid, change });
  }

  private asker(r: string, method: string, ctx: ServerContext): Asker {
    return {
      r,
      by: this.cluster.nodeId,
      method,
      era: ctx.scope.era,
      caps: ctx.scope.clientCapabilities ?? {},
    };
  }

  /**
   * Asks `node` for what `wire` says, and waits for its outcome: `unheard` when it does not listen, `died` (by
   * default the same) when it is found gone meanwhile.
   */
  private ask(
    node: string,
    ctx: ServerContext,
    wire: (r: string) => Wire & { r: string; method: string },
    unheard: () => Error,
    died: () => Error = unheard,
  ): Promise<Result | InputRequired> {
    const r = randomBytesPooled(12).toString('base64url');
    const asked = wire(r);
    return new Promise((resolve, reject) => {
      const finish = () => {
        this.waiting.delete(r);
        clearInterval(watch);
        ctx.signal.removeEventListener('abort', onabort);
      };
      const onabort = () => {
        finish();
        const id = asked.op === 'round' ? asked.id : undefined;
        this.send(node, { op: 'release', r, id, why: `the client cancelled ${asked.method}` });
        reject(ctx.signal.reason);
      };
      const watch = setInterval(() => {
        this.cluster.living([node]).then(([alive]) => {
          if (alive || !this.waiting.has(r)) return;
          finish();
          reject(died());
        }, noop);
      }, LIVENESS_CHECK_MS);
      this.waiting.set(r, {
        ctx,
        done: (outcome) => {
          finish();
          if ('result' in outcome) resolve(outcome.result);
          else if ('error' in outcome)
            reject(new McpError(outcome.error.code, outcome.error.message, outcome.error.data));
          else resolve(inputRequired({ inputRequests: outcome.inputRequests, state: outcome.state }));
        },
      });
      ctx.signal.addEventListener('abort', onabort, { once: true });
      this.cluster.tell(node, TOPIC, asked).then(
        (delivered) => {
          if (delivered || !this.waiting.has(r)) return;
          finish();
          reject(unheard());
        },
        (err: Error) => {
          finish();
          reject(err);
        },
      );
    });
  }

  private heard(m: Wire): void {
    switch (m.op) {
      case 'round':
        this.serveFor(m, () => {
          const exchange = this.exchanges?.take(m.id);
          if (exchange === undefined) throw notHeld(m.method);
          exchange.resume(this.relayTo(m.by, m.r), m.responses);
          return exchange;
        });
        return;
      case 'call':
        this.serveFor(m, () => {
          if (this.isolated === undefined)
            throw new McpError(ErrorCode.InternalError, 'This process isolates no session');
          return this.isolated.begin(m.sid, m.method, m.params, this.relayTo(m.by, m.r), m.progress);
        });
        return;
      case 'session':
        this.isolated?.changed(m.sid, m.change);
        return;
      case 'release': {
        const served = this.serving.get(m.r);
        if (served !== undefined) {
          served.released = m.why;
          served.exchange?.release(m.why);
        } else if (m.id !== undefined) this.exchanges?.take(m.id)?.release(m.why);
        return;
      }
      case 'progress':
        this.waiting
          .get(m.r)
          ?.ctx.sendProgress(...m.p)
          .catch(noop);
        return;
      case 'log':
        this.waiting
          .get(m.r)
          ?.ctx.log(...m.l)
          .catch(noop);
        return;
      case 'done':
        this.waiting.get(m.r)?.done(m.o);
        return;
    }
  }

  /** Serves, for process `m.by`, a round of the exchange `exchange` gives, and answers it with the round's outcome. */
  private async serveFor(m: Asker, exchange: () => HeldExchange | Promise<HeldExchange>): Promise<void> {
    const served: { exchange?: HeldExchange; released?: string } = {};
    this.serving.set(m.r, served);
    let o: WireOutcome;
    try {
      const held = await exchange();
      served.exchange = held;
      if (served.released !== undefined) held.release(served.released);
      // The relay to the asking process ends with the round, whatever the era.
      const asker = { era: m.era, clientCapabilities: m.caps };
      const outcome = await serveRound(held, this.exchanges!, m.method, asker, true);
      o = 'result' in outcome ? outcome : { inputRequests: outcome.inputRequests, state: held.id };
    } catch (err) {
      o = { error: wireError(err) };
    } finally {
      this.serving.delete(m.r);
    }
    this.send(m.by, { op: 'done', r: m.r, o });
  }

  /** The round's client as the holder sees it: the process that answers the retry. */
  private relayTo(node: string, r: string): RoundClient {
    return {
      sendProgress: async (progress, total, message) => {
        this.send(node, { op: 'progress', r, p: [progress, total, message] });
      },
      log: async (level, data, logger) => {
        this.send(node, { op: 'log', r, l: [level, data, logger] });
      },
    };
  }

  private send(node: string, m: Wire): void {
    this.cluster.tell(node, TOPIC, m).then(
      (delivered) => {
        if (!delivered) this.report(`a bridged request's round: process ${node} no longer listens (${m.op})`);
      },
      (err: Error) =>
        this.report(`a bridged request's round could not be told to process ${node}: ${err.message}`),
    );
  }
}

function wireError(err: unknown): WireError {
  if (err instanceof McpError) return { code: err.code, message: err.message, data: err.data };
  return { code: ErrorCode.InternalError, message: err instanceof Error ? err.message : String(err) };
}
