import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { Params } from '../jsonrpc/types.js';
import type { InputRequest, InputResponses } from '../protocol/modern-types.js';
import {
  type CreateMessageRequestParams,
  type ElicitRequestParams,
  Method,
  type Result,
} from '../protocol/types.js';
import type { ServerContext } from './context.js';
import { InputRequired } from './input-required.js';
import type { MethodHandler } from './methods.js';
import type { Server } from './server.js';

/** Rounds a handler may ask for on a legacy session before the request fails (a handler that never settles). */
export const MAX_LOCAL_ROUNDS = 8;

/** A context whose handler runs again with the answers: a legacy request's, or a task's. */
export interface RerunContext extends ServerContext {
  inputResponses: InputResponses | undefined;
  requestState: unknown;
}

/**
 * What `handler` answered (`outcome`, direct or a promise), with an `inputRequired` answer served here by
 * `fulfilLocally`: a legacy request's and a task's one path.
 */
export function withInputServed(
  server: Server,
  handler: MethodHandler,
  params: Params,
  ctx: RerunContext,
  outcome: Result | InputRequired | Promise<Result | InputRequired>,
): Result | Promise<Result> {
  if (outcome instanceof InputRequired) return fulfilLocally(server, handler, params, ctx, outcome);
  if (outcome instanceof Promise) {
    return outcome.then((o) =>
      o instanceof InputRequired ? fulfilLocally(server, handler, params, ctx, o) : o,
    );
  }
  return outcome;
}

/**
 * Serves a handler's `inputRequired` on a legacy session (or in a task), where the server can ask the client itself: each
 * round's requests go out together as server-to-client requests (capability-checked, cancelled with the
 * request), and the handler runs again with the answers and its state, until it answers with a result.
 */
export async function fulfilLocally(
  server: Server,
  handler: MethodHandler,
  params: Params,
  ctx: RerunContext,
  first: InputRequired,
): Promise<Result> {
  let round = first;
  for (let n = 0; n < MAX_LOCAL_ROUNDS; n++) {
    const answers: InputResponses = {};
    const asked = Object.entries(round.inputRequests ?? {});
    await Promise.all(
      asked.map(async ([key, request]) => {
        answers[key] = await ask(ctx, request);
      }),
    );
    ctx.inputResponses = answers;
    ctx.requestState = round.state;
    const outcome = await handler(server, params, ctx);
    if (!(outcome instanceof InputRequired)) return outcome;
    round = outcome;
  }
  throw new McpError(
    ErrorCode.InternalError,
    `The handler of ${ctx.method} still needed input after ${MAX_LOCAL_ROUNDS} rounds; it must answer with a result`,
  );
}

function ask(ctx: RerunContext, request: InputRequest): Promise<unknown> {
  switch (request.method) {
    case Method.ElicitationCreate:
      return ctx.elicit(request.params as unknown as ElicitRequestParams);
    case Method.SamplingCreateMessage:
      return ctx.createMessage(request.params as unknown as CreateMessageRequestParams);
    default:
      return ctx.listRoots();
  }
}
