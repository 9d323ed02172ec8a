import type { ClusterMessaging } from '../cluster/direct-messages.js';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { InputRequests, InputResponses } from '../protocol/modern-types.js';
import type { ClientCapabilities, LoggingLevel, Result } from '../protocol/types.js';
import type { Era } from '../protocol/versions.js';
import type { ServerContext } from '../server/context.js';
import { type InputRequired, inputRequired } from '../server/input-required.js';
import { randomBytesPooled } from '../util/random-pool.js';
import { notHeld, serveRound } from './forward.js';
import type { HeldExchange, HeldExchanges, RemoteRounds, RoundClient } from './held-exchange.js';

const TOPIC = 'mcpwire.bridge.round';
/** How often a process waiting for another's round checks that the other is alive. */
const LIVENESS_CHECK_MS = 2000;

type WireError = { code: number; message: string; data?: unknown };
type WireOutcome =
  | { result: Result }
  | { inputRequests: InputRequests; state: string }
  | { error: WireError };

/** What the processes say to each other about rounds (`r` names the round asked for, on the asking process). */
type Wire =
  | {
      op: 'round';
      id: string;
      r: string;
      by: string;
      method: string;
      era: Era;
      caps: ClientCapabilities;
      responses?: InputResponses;
    }
  | { op: 'release'; id: string; why: string }
  | { op: 'progress'; r: string; p: [number, number | undefined, string | undefined] }
  | { op: 'log'; r: string; l: [LoggingLevel, unknown, string | undefined] }
  | { op: 'done'; r: string; o: WireOutcome };

interface Waiting {
  readonly ctx: ServerContext;
  done(outcome: WireOutcome): void;
}

const noop = () => {};

/**
 * The processes of a cluster serving each other's held exchanges. The child a forwarded request waits in lives in
 * one process, but a 2026 client's retry may reach any: the process it reaches asks the holder (named by the
 * exchange's id) to serve the round with the retry's answers and the client's declared capabilities, hears the
 * child's progress and log messages as they come (and gives them to the retry's context), and answers the retry
 * with the round's outcome. A retry whose client goes away releases the exchange in the holder; a holder that is
 * gone fails the retry, saying to send the request anew.
 */
export class ClusterRounds implements RemoteRounds {
  private exchanges: HeldExchanges | undefined;
  /** Rounds this process asked another for, by `r`. */
  private readonly waiting = new Map<string, Waiting>();
  /** Exchanges held here whose round another process asked for, by id (its client may cancel meanwhile). */
  private readonly serving = new Map<string, HeldExchange>();

  constructor(
    private readonly cluster: ClusterMessaging,
    private readonly report: (message: string) => void,
  ) {
    cluster.direct.on(TOPIC, (body) => this.heard(body as Wire));
  }

  /** The exchanges this process holds, whose rounds it serves for the others. */
  serve(exchanges: HeldExchanges): void {
    this.exchanges = exchanges;
  }

  round(node: string, id: string, method: string, ctx: ServerContext): Promise<Result | InputRequired> {
    const r = randomBytesPooled(12).toString('base64url');
    const gone = () =>
      new McpError(
        ErrorCode.InvalidParams,
        `This retry continues a ${method} held by another server process, which is gone: send the request anew, ` +
          'without requestState',
      );
    return new Promise((resolve, reject) => {
      const finish = () => {
        this.waiting.delete(r);
        clearInterval(watch);
        ctx.signal.removeEventListener('abort', onabort);
      };
      const onabort = () => {
        finish();
        this.send(node, { op: 'release', id, why: `the client cancelled ${method}` });
        reject(ctx.signal.reason);
      };
      const watch = setInterval(() => {
        this.cluster.living([node]).then(([alive]) => {
          if (alive || !this.waiting.has(r)) return;
          finish();
          reject(gone());
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
      const asked: Wire = {
        op: 'round',
        id,
        r,
        by: this.cluster.nodeId,
        method,
        era: ctx.scope.era,
        caps: ctx.scope.clientCapabilities ?? {},
        responses: ctx.inputResponses,
      };
      this.cluster.tell(node, TOPIC, asked).then(
        (delivered) => {
          if (delivered || !this.waiting.has(r)) return;
          finish();
          reject(gone());
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
        this.serveFor(m);
        return;
      case 'release':
        (this.serving.get(m.id) ?? this.exchanges?.take(m.id))?.release(m.why);
        return;
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

  /** Serves a round of an exchange held here for process `m.by`, which answers the retry. */
  private async serveFor(m: Extract<Wire, { op: 'round' }>): Promise<void> {
    const exchanges = this.exchanges;
    const exchange = exchanges?.take(m.id);
    if (exchanges === undefined || exchange === undefined) {
      this.send(m.by, { op: 'done', r: m.r, o: { error: wireError(notHeld(m.method)) } });
      return;
    }
    this.serving.set(m.id, exchange);
    exchange.ctx = this.relayTo(m.by, m.r);
    exchange.answer(m.responses);
    let o: WireOutcome;
    try {
      const outcome = await serveRound(exchange, exchanges, m.method, {
        era: m.era,
        clientCapabilities: m.caps,
      });
      o = 'result' in outcome ? outcome : { inputRequests: outcome.inputRequests, state: exchange.id };
    } catch (err) {
      o = { error: wireError(err) };
    } finally {
      this.serving.delete(m.id);
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
