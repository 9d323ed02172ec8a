import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { JsonRpcRequest, Params } from '../jsonrpc/types.js';
import type { InputRequests, InputResponses } from '../protocol/modern-types.js';
import type { Result } from '../protocol/types.js';
import { RunningRequest } from '../session/session.js';
import { clientCallProblem, requiredCapabilities } from './client-capabilities.js';
import type { ModernScope } from './client-scope.js';
import { InputRequired } from './input-required.js';
import { CACHEABLE_METHODS, MODERN_METHODS, ROUND_TRIP_METHODS } from './methods.js';
import { ModernContext, type ModernOutlet } from './modern-context.js';
import { type JournalState, ReplayJournal } from './replay-journal.js';
import { bindingOf } from './request-state.js';
import type { Server } from './server.js';

const NO_PARAMS: Params = Object.freeze({});

/** Why a round's answer was abandoned: the handler's signal says so. */
export class RoundEndedError extends Error {
  override name = 'RoundEndedError';
  constructor() {
    super('The round ended with input_required; the handler runs again when the client answers');
  }
}

/**
 * One modern request being served, whatever carries it (a POST, a stdio line): runs the handler once per
 * round with a throwaway `ModernContext`, and answers the wire result — complete, with the result envelope
 * (`resultType`, serverInfo, caching hints), or `input_required` with the round's requests and the sealed
 * state. Throws (or rejects with) the McpError the client should get; closing it (`abort`) cancels the handler.
 * Admission (envelope, version, method, params, headers) happened before: see `admitModern`.
 */
export class ModernCall {
  private readonly running = new RunningRequest();

  constructor(
    private readonly server: Server,
    private readonly request: JsonRpcRequest,
    private readonly scope: ModernScope,
    private readonly outlet: ModernOutlet,
    /** Whoever the transport authenticated; the sealed state is bound to it. */
    private readonly principal: string | undefined,
  ) {}

  /** Cancels the handler (through its signal); nothing is answered after. */
  abort(reason: unknown): void {
    this.running.abort(reason);
  }

  get aborted(): boolean {
    return this.running.aborted;
  }

  run(): Result | Promise<Result> {
    const { server, request } = this;
    const method = request.method;
    const handler = MODERN_METHODS[method]!;
    const params = request.params ?? NO_PARAMS;
    if (!ROUND_TRIP_METHODS.has(method)) {
      const ctx = this.context(undefined, undefined, undefined, noWaiting);
      const outcome = handler(server, params, ctx);
      return outcome instanceof Promise
        ? outcome.then((r) => this.complete(r as Result), this.translate)
        : this.complete(outcome as Result);
    }
    let bind: string | undefined;
    // Hashing the arguments is paid only by a request that carries state or answers with some.
    const binding = (): string => {
      bind ??= this.binding(params);
      return bind;
    };
    const state =
      params.requestState === undefined ? undefined : this.openState(params.requestState, binding());
    const responses = params.inputResponses as InputResponses | undefined;
    const journal = new ReplayJournal(state, responses);
    const answer = (o: Result | InputRequired): Result =>
      o instanceof InputRequired ? this.inputRequired(journal, o, binding) : this.complete(o);
    let settled = false;
    let resolveRound: ((result: Result) => void) | undefined;
    let rejectRound: ((err: unknown) => void) | undefined;
    // Runs after the turn in which the handler first waited on an unanswered call: always after this
    // method returned, so only an asynchronous handler can still be running.
    const waiting = (): void => {
      if (settled) return;
      settled = true;
      this.running.abort(new RoundEndedError());
      try {
        resolveRound!(this.inputRequired(journal, undefined, binding));
      } catch (err) {
        rejectRound!(this.translateError(err));
      }
    };
    const ctx = this.context(journal, responses, state?.u, waiting);
    let outcome: ReturnType<typeof handler>;
    try {
      outcome = handler(server, params, ctx);
      if (!(outcome instanceof Promise)) {
        settled = true;
        return answer(outcome);
      }
    } catch (err) {
      settled = true;
      throw this.translateError(err);
    }
    const pending = outcome;
    return new Promise<Result>((resolve, reject) => {
      resolveRound = resolve;
      rejectRound = reject;
      pending.then(
        (o) => {
          if (settled) return;
          settled = true;
          try {
            resolve(answer(o));
          } catch (err) {
            reject(this.translateError(err));
          }
        },
        (err) => {
          if (settled) return;
          settled = true;
          reject(this.translateError(err));
        },
      );
    });
  }

  private context(
    journal: ReplayJournal | undefined,
    responses: InputResponses | undefined,
    userState: unknown,
    onwaiting: () => void,
  ): ModernContext {
    return new ModernContext(
      this.server,
      this.scope,
      this.request,
      this.running,
      this.outlet,
      journal,
      responses,
      userState,
      onwaiting,
    );
  }

  /** The sealed state is good only for this principal, method, name or URI, and arguments. */
  private binding(params: Params): string {
    return bindingOf({
      principal: this.principal,
      method: this.request.method,
      target: (params.name ?? params.uri) as string | undefined,
      args: params.arguments,
    });
  }

  private openState(token: unknown, bind: string): JournalState {
    const opened = this.server.requestStates.open(token, bind);
    if (!opened.ok) {
      throw new McpError(
        ErrorCode.InvalidParams,
        'Invalid or expired requestState: send the request again without it',
        {
          reason: opened.reason,
        },
      );
    }
    return opened.payload as JournalState;
  }

  /** The wire answer of a round that needs the client: the journal's calls and the handler's own requests. */
  private inputRequired(
    journal: ReplayJournal,
    own: InputRequired | undefined,
    binding: () => string,
  ): Result {
    const requests: InputRequests | undefined =
      own?.inputRequests === undefined
        ? journal.inputRequests()
        : { ...journal.inputRequests(), ...own.inputRequests };
    for (const { method, params } of Object.values(requests ?? {})) {
      const problem = clientCallProblem(this.scope.clientCapabilities, method, params);
      if (problem !== undefined) {
        throw new McpError(
          ErrorCode.MissingRequiredClientCapability,
          `${problem}; declare it in this request's _meta`,
          {
            requiredCapabilities: requiredCapabilities(method, params),
          },
        );
      }
    }
    const result: Result = { resultType: 'input_required' };
    if (requests !== undefined) result.inputRequests = requests;
    const state = journal.state(own?.state);
    if (state !== undefined) result.requestState = this.server.requestStates.seal(state, binding());
    result._meta = this.server.serverInfoMeta;
    return result;
  }

  /** A complete result in the modern envelope; the handler's own object is left as it was. */
  private complete(result: Result): Result {
    // Object.assign, not a spread with a property after it: V8 builds that one on a path ~25× slower.
    const out: Result = Object.assign({}, result);
    out.resultType = 'complete';
    if (CACHEABLE_METHODS.has(this.request.method)) {
      const hints = this.server.cacheHints;
      out.ttlMs = hints.ttlMs;
      out.cacheScope = hints.cacheScope;
    }
    const meta = result._meta;
    out._meta = meta === undefined ? this.server.serverInfoMeta : { ...meta, ...this.server.serverInfoMeta };
    return out;
  }

  private readonly translate = (err: unknown): never => {
    throw this.translateError(err);
  };

  /** Spec 2026-07-28: a resource that is not found is -32602, with its URI. */
  private translateError(err: unknown): unknown {
    if (err instanceof McpError && err.code === ErrorCode.ResourceNotFound) {
      return new McpError(ErrorCode.InvalidParams, err.message, err.data);
    }
    return err;
  }
}

const noWaiting = (): void => {};
