import { ErrorCode, McpError } from '../../jsonrpc/errors.js';
import type { JsonRpcRequest, Params } from '../../jsonrpc/types.js';
import { RunningRequest } from '../../peer/request-context.js';
import type { InputRequests, InputResponses } from '../../protocol/modern-types.js';
import { ROUND_TRIP_METHODS } from '../../protocol/modern-types.js';
import { Method, type Result } from '../../protocol/types.js';
import { callerOf } from '../access.js';
import { clientCallProblem, requiredCapabilities } from '../client-capabilities.js';
import type { ModernScope } from '../client-scope.js';
import { InputRequired } from '../input-required.js';
import type { MethodHandler } from '../methods.js';
import type { Server } from '../server.js';
import { runInTask } from '../tasks/run-in-task.js';
import { modernTaskMode } from '../tasks/task-policy.js';
import { TaskRun } from '../tasks/task-run.js';
import { modernTask } from '../tasks/task-wire.js';
import { ModernContext, type ModernOutlet, type ModernRound } from './context.js';
import { type JournalState, ReplayJournal } from './replay-journal.js';
import { bindingOf } from './request-state.js';

const NO_PARAMS: Params = Object.freeze({});

const ENDED_BEFORE_TASK = 'The request ended before its task was created';

/** A task stored for a request that ended meanwhile: no one has its id, so it ends at once. */
function abandon(run: TaskRun): void {
  run.settle(Promise.reject(new Error(ENDED_BEFORE_TASK)));
}

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
export class ModernCall implements ModernRound {
  private readonly running: RunningRequest;
  /** Whether this tools/call may still become a task (`ctx.startTask`); false once it is one. */
  private mayStartTask = false;
  private task: TaskRun | undefined;
  private outcome: Promise<Result | InputRequired> | undefined;
  private journal: ReplayJournal | undefined;
  private bind: string | undefined;
  private settled = false;
  private resolveRound: ((result: Result) => void) | undefined;
  private rejectRound: ((err: unknown) => void) | undefined;

  constructor(
    private readonly server: Server,
    private readonly request: JsonRpcRequest,
    private readonly scope: ModernScope,
    private readonly outlet: ModernOutlet,
    /** Whoever the transport authenticated; the sealed state is bound to it. */
    private readonly principal: string | undefined,
  ) {
    this.running = new RunningRequest(request.method);
  }

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
    const handler = server.modernMethods[method]!;
    const params = request.params ?? NO_PARAMS;
    if (!ROUND_TRIP_METHODS.has(method)) {
      const ctx = this.context(undefined, undefined, undefined);
      const outcome = handler(server, params, ctx);
      return outcome instanceof Promise
        ? outcome.then(this.completeOnly, this.translate)
        : this.completeOnly(outcome);
    }
    if (method === Method.ToolsCall && server.tasks !== undefined) {
      const mode = modernTaskMode(server, params, this.scope, callerOf(this.outlet.transport));
      if (mode === 'task') return this.runAsTask(handler, params);
      this.mayStartTask = mode === 'deferred';
    }
    const state = params.requestState === undefined ? undefined : this.openState(params.requestState);
    const responses = params.inputResponses as InputResponses | undefined;
    // Answers are checked here, before the handler runs: a wrong one fails the retry (-32602), and the client
    // may send it again corrected.
    const journal = new ReplayJournal(state, responses);
    this.journal = journal;
    const ctx = this.context(journal, journal.ownAnswers, state?.u);
    let outcome: ReturnType<typeof handler>;
    try {
      outcome = handler(server, params, ctx);
      if (!(outcome instanceof Promise)) {
        this.settled = true;
        return this.answer(outcome);
      }
    } catch (err) {
      this.settled = true;
      throw this.translateError(err);
    }
    const pending = outcome;
    this.outcome = pending;
    return new Promise<Result>((resolve, reject) => {
      this.resolveRound = resolve;
      this.rejectRound = reject;
      pending.then(
        (o) => this.task ?? this.settle(() => this.answer(o)),
        (err) =>
          this.task ??
          this.settle(() => {
            throw err;
          }),
      );
    });
  }

  /** @internal The handler asked to go on as a task: answers the task, and its outcome goes to the task. */
  async startTask(ctx: ModernContext): Promise<boolean> {
    if (!this.mayStartTask || this.settled) return false;
    this.mayStartTask = false;
    const run = await this.createTask();
    if (this.settled || this.running.aborted) {
      abandon(run);
      return false;
    }
    this.task = run;
    ctx.task = run;
    this.settle(() => this.taskCreated(run));
    const params = this.request.params ?? NO_PARAMS;
    runInTask(run, this.server, this.server.modernMethods[this.request.method]!, params, ctx, this.outcome);
    return true;
  }

  /** Creates the task first, then runs the handler in it from the start. */
  private async runAsTask(handler: MethodHandler, params: Params): Promise<Result> {
    const run = await this.createTask();
    this.settled = true;
    if (this.running.aborted) {
      abandon(run);
      throw new McpError(ErrorCode.RequestCancelled, ENDED_BEFORE_TASK);
    }
    this.task = run;
    const ctx = this.context(undefined, undefined, undefined);
    ctx.task = run;
    runInTask(run, this.server, handler, params, ctx);
    return this.taskCreated(run);
  }

  private createTask(): Promise<TaskRun> {
    const server = this.server;
    const settings = server.tasks!;
    return TaskRun.create(settings, this.principal, settings.ttlMs, server.report, this.running);
  }

  /** `CreateTaskResult` (SEP-2663): the task's state, `resultType: "task"`, and nothing of the request's rounds. */
  private taskCreated(run: TaskRun): Result {
    const result: Result = modernTask(run.record);
    result.resultType = 'task';
    result._meta = this.server.serverInfoMeta;
    return result;
  }

  /**
   * @internal Called by the context after the turn in which the handler first waited on an unanswered call:
   * always after `run` returned, so only an asynchronous handler can still be running. Ends the round.
   */
  waiting(): void {
    if (this.settled) return;
    this.running.abort(new RoundEndedError());
    this.settle(() => this.inputRequired(undefined));
  }

  /** Resolves the round once, with what `answer` makes or the error it throws. */
  private settle(answer: () => Result): void {
    if (this.settled) return;
    this.settled = true;
    try {
      this.resolveRound!(answer());
    } catch (err) {
      this.rejectRound!(this.translateError(err));
    }
  }

  private answer(outcome: Result | InputRequired): Result {
    return outcome instanceof InputRequired ? this.inputRequired(outcome) : this.complete(outcome);
  }

  private context(
    journal: ReplayJournal | undefined,
    responses: InputResponses | undefined,
    userState: unknown,
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
      this,
    );
  }

  /** The sealed state is good only for this principal, method, name or URI, and arguments; hashed once, on need. */
  private binding(): string {
    if (this.bind !== undefined) return this.bind;
    const params = this.request.params ?? NO_PARAMS;
    this.bind = bindingOf({
      principal: this.principal,
      method: this.request.method,
      target: (params.name ?? params.uri) as string | undefined,
      args: params.arguments,
    });
    return this.bind;
  }

  private openState(token: unknown): JournalState {
    const opened = this.server.requestStates.open(token, this.binding());
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
  private inputRequired(own: InputRequired | undefined): Result {
    const journal = this.journal!;
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
    const state = journal.state(own?.state, own?.inputRequests);
    if (state !== undefined) result.requestState = this.server.requestStates.seal(state, this.binding());
    result._meta = this.server.serverInfoMeta;
    return result;
  }

  /** A complete result in the modern envelope; the handler's own object is left as it was. */
  private complete(result: Result): Result {
    // Object.assign, not a spread with a property after it: V8 builds that one on a path ~25× slower.
    const out: Result = Object.assign({}, result);
    out.resultType = 'complete';
    if (this.server.cacheableMethods.has(this.request.method)) {
      const hints = this.server.cacheHints;
      out.ttlMs = hints.ttlMs;
      // A shared cache must not give one caller's list to another.
      out.cacheScope =
        hints.cacheScope === 'public' && dependsOnCaller(this.server, this.request.method)
          ? 'private'
          : hints.cacheScope;
    }
    const meta = result._meta;
    out._meta = meta === undefined ? this.server.serverInfoMeta : { ...meta, ...this.server.serverInfoMeta };
    return out;
  }

  /** The answer of a method that takes no rounds: never input_required (the client could not answer it). */
  private readonly completeOnly = (result: Result | InputRequired): Result => {
    if (result instanceof InputRequired) {
      throw new McpError(
        ErrorCode.InternalError,
        `The ${this.request.method} handler asked the client for input, which the 2026-07-28 era allows only ` +
          `on ${[...ROUND_TRIP_METHODS].join(', ')}`,
      );
    }
    return this.complete(result);
  };

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

/** True when what `method` answers depends on who asks: what it lists or reads has entries guarded by an `Access`. */
function dependsOnCaller(server: Server, method: string): boolean {
  switch (method) {
    case Method.ToolsList:
      return server.toolEntries.guarded;
    case Method.PromptsList:
      return server.promptEntries.guarded;
    case Method.ResourcesList:
    case Method.ResourcesTemplatesList:
    case Method.ResourcesRead:
      return server.resourceEntries.guarded || server.templateEntries.guarded;
    default:
      return false;
  }
}
