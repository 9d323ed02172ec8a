import { ErrorCode, McpError } from '../../jsonrpc/errors.js';
import type { JsonRpcNotification, JsonRpcRequest, Params, RequestId } from '../../jsonrpc/types.js';
import type { MessageInfo } from '../../peer/connection.js';
import type { RunningRequest } from '../../peer/request-context.js';
import { type InputRequest, type InputResponses, isInputMethod } from '../../protocol/modern-types.js';
import {
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type ElicitRequestParams,
  type ElicitResult,
  type ListRootsResult,
  type LoggingLevel,
  Method,
} from '../../protocol/types.js';
import { DONE } from '../../util/done.js';
import { askRefused } from '../ask-check.js';
import { clientCallProblem, requiredCapabilities } from '../client-capabilities.js';
import type { ModernScope } from '../client-scope.js';
import type { ServerContext } from '../context.js';
import type { Server } from '../server.js';
import type { TaskRun } from '../tasks/task-run.js';
import type { ReplayJournal } from './replay-journal.js';

/** What the transport of one modern request offers its handler: a way to the client before the result. */
export interface ModernOutlet {
  /** Sends a notification related to the request (progress, a log) ahead of its result. */
  notify(message: JsonRpcNotification): void;
  /** What the transport knows of the sender. */
  readonly transport: MessageInfo | undefined;
}

// What a call the client has not answered yet awaits: this run ends with the round, so it never settles. One
// per call, so that the abandoned handler is collected with it (a shared one would hold every handler).
const unanswered = (): Promise<never> => new Promise(() => {});

/** What a modern request's context tells the request it serves. */
export interface ModernRound {
  /** Told once, after the turn in which the handler first asked for something not yet answered. */
  waiting(): void;
  /** The handler asked to go on as a task (`ctx.startTask`): true once the task is created. */
  startTask(ctx: ModernContext): Promise<boolean>;
}

/**
 * The context of a modern request. Calls to the client are answered from the replay journal; the first one
 * it cannot answer is recorded and, once the handler has made every call of that turn (`Promise.all` makes
 * several), the round is told it is waiting, and ends. A call the request's capabilities do not allow rejects with -32021.
 * Once the request runs as a task (`task`), calls to the client become the task's `input_required` state, and
 * progress and logs go nowhere (the Tasks extension has no notifications for a task but its status).
 */
export class ModernContext implements ServerContext {
  readonly requestId: RequestId;
  readonly method: string;
  readonly meta: Record<string, unknown> | undefined;
  private roundEnding = false;
  /** @internal Set when the request runs as a task. */
  task: TaskRun | undefined;

  constructor(
    readonly server: Server,
    readonly scope: ModernScope,
    request: JsonRpcRequest,
    private readonly running: RunningRequest,
    private readonly outlet: ModernOutlet,
    private readonly journal: ReplayJournal | undefined,
    public inputResponses: InputResponses | undefined,
    public requestState: unknown,
    private readonly round: ModernRound,
  ) {
    this.requestId = request.id;
    this.method = request.method;
    this.meta = request.params?._meta as Record<string, unknown> | undefined;
  }

  get session(): undefined {
    return undefined;
  }

  get transport(): MessageInfo | undefined {
    return this.outlet.transport;
  }

  get signal(): AbortSignal {
    return this.running.signal;
  }

  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    if (!this.scope.logs(level)) return DONE;
    const params: Params = logger === undefined ? { level, data } : { level, logger, data };
    return this.notify(Method.LoggingMessage, params);
  }

  sendProgress(progress: number, total?: number, message?: string): Promise<void> {
    const token = this.meta?.progressToken;
    if (token === undefined) return DONE;
    const params: Params = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    return this.notify(Method.Progress, params);
  }

  startTask(): Promise<boolean> {
    return this.task === undefined ? this.round.startTask(this) : Promise.resolve(true);
  }

  notify(method: string, params?: Params): Promise<void> {
    if (!this.running.aborted && this.task === undefined) {
      this.outlet.notify(
        params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params },
      );
    }
    return DONE;
  }

  request<R = Record<string, unknown>>(method: string, params?: Params): Promise<R> {
    return this.callClient<R>(method, params);
  }

  listRoots(): Promise<ListRootsResult> {
    return this.callClient(Method.RootsList, undefined);
  }

  createMessage(params: CreateMessageRequestParams): Promise<CreateMessageResult> {
    return this.callClient(Method.SamplingCreateMessage, params as unknown as Params);
  }

  elicit(params: ElicitRequestParams): Promise<ElicitResult> {
    return this.callClient(Method.ElicitationCreate, params as unknown as Params);
  }

  private callClient<R>(method: string, params: Params | undefined): Promise<R> {
    const journal = this.journal;
    const task = this.task;
    if (journal === undefined && task === undefined) {
      return Promise.reject(
        new Error(
          `${this.method} cannot ask the client (${method}): in the 2026-07-28 era only tools/call, prompts/get and resources/read may need input`,
        ),
      );
    }
    if (!isInputMethod(method)) {
      return Promise.reject(
        new Error(`Cannot send ${method} to a 2026-07-28 client: it takes no requests from the server`),
      );
    }
    const problem = clientCallProblem(this.scope.clientCapabilities, method, params);
    if (problem !== undefined) {
      return Promise.reject(
        new McpError(
          ErrorCode.MissingRequiredClientCapability,
          `${problem}; declare it in this request's _meta`,
          {
            requiredCapabilities: requiredCapabilities(method, params),
          },
        ),
      );
    }
    const refused = askRefused(method, params);
    if (refused !== undefined) return Promise.reject(refused);
    if (task !== undefined) {
      const request = (params === undefined ? { method } : { method, params }) as InputRequest;
      return task.ask(request) as Promise<R>;
    }
    let answer: unknown;
    try {
      answer = journal!.next(method, params);
    } catch (err) {
      return Promise.reject(err);
    }
    if (answer !== undefined) return Promise.resolve(answer as R);
    if (!this.roundEnding) {
      this.roundEnding = true;
      // After the calls made in this turn (a Promise.all of several is one round), not after the first.
      const round = this.round;
      setImmediate(() => round.waiting());
    }
    return unanswered();
  }
}
