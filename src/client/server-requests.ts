import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { Params } from '../jsonrpc/types.js';
import { checkClientAnswer } from '../protocol/client-answers.js';
import {
  type CreateMessageRequestParams,
  type ElicitRequestFormParams,
  type ElicitRequestParams,
  type ElicitRequestURLParams,
  type ElicitResult,
  Method,
} from '../protocol/types.js';
import type { Client, RootsHandler } from './client.js';
import type { ClientContext } from './client-session.js';
import { applyElicitationDefaults } from './elicitation-defaults.js';

/**
 * Answers what a server asks of this client (`roots/list`, `sampling/createMessage`,
 * `elicitation/create`) with the Client's handlers: as real requests on a legacy session, and as the
 * `inputRequests` of a modern round. A method or mode the client did not declare is refused with the
 * error naming the capability to declare. An answer the server would refuse (form content that does not fit
 * the requested schema, a root that is no file:// URI) is never sent: it fails here, -32603 naming the field.
 */
export function answerServer(
  client: Client,
  roots: RootsHandler,
  method: string,
  params: Params | undefined,
  ctx: ClientContext,
): Promise<Record<string, unknown>> | Record<string, unknown> {
  const answer = answerWithHandlers(client, roots, method, params, ctx);
  return answer instanceof Promise
    ? answer.then((a) => checked(method, params, a))
    : checked(method, params, answer);
}

function checked(method: string, params: Params | undefined, answer: unknown): Record<string, unknown> {
  const result = checkClientAnswer(method, params, answer);
  if (result.ok) return result.value;
  throw new McpError(
    ErrorCode.InternalError,
    `This client's answer to ${method} is wrong, so it was not sent: result${result.at} ${result.problem}`,
    { method, field: `result${result.at}` },
  );
}

function answerWithHandlers(
  client: Client,
  roots: RootsHandler,
  method: string,
  params: Params | undefined,
  ctx: ClientContext,
): Promise<Record<string, unknown>> | Record<string, unknown> {
  switch (method) {
    case Method.RootsList: {
      if (client.capabilities.roots === undefined) throw notDeclared(method, 'roots');
      const listed = roots(ctx);
      return listed instanceof Promise ? listed.then((r) => ({ roots: r })) : { roots: listed };
    }
    case Method.SamplingCreateMessage:
      return sample(client, (params ?? {}) as unknown as CreateMessageRequestParams, ctx);
    case Method.ElicitationCreate:
      return elicit(client, (params ?? {}) as unknown as ElicitRequestParams, ctx);
    default:
      throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
  }
}

function sample(client: Client, params: CreateMessageRequestParams, ctx: ClientContext) {
  const handler = client.options.sampling;
  if (handler === undefined) throw notDeclared(Method.SamplingCreateMessage, 'sampling');
  if ((params.tools !== undefined || params.toolChoice !== undefined) && !client.options.samplingTools) {
    throw new McpError(
      ErrorCode.InvalidParams,
      'Invalid params: this client did not declare the sampling.tools capability, ' +
        'so a sampling request must not carry "tools" or "toolChoice"',
    );
  }
  return handler(params, ctx) as Promise<Record<string, unknown>> | Record<string, unknown>;
}

async function elicit(
  client: Client,
  params: ElicitRequestParams,
  ctx: ClientContext,
): Promise<ElicitResult> {
  const handlers = client.options.elicitation;
  if (client.capabilities.elicitation === undefined)
    throw notDeclared(Method.ElicitationCreate, 'elicitation');
  const mode = params.mode ?? 'form';
  if (mode === 'url') {
    if (handlers?.url === undefined) throw modeNotDeclared(mode);
    return handlers.url(params as ElicitRequestURLParams, ctx);
  }
  if (mode !== 'form' || handlers?.form === undefined) throw modeNotDeclared(mode);
  const form = params as ElicitRequestFormParams;
  const result = await handlers.form(form, ctx);
  if (result.action !== 'accept' || client.options.applyElicitationDefaults === false) return result;
  const content = applyElicitationDefaults(form.requestedSchema, result.content);
  return content === result.content ? result : { ...result, content };
}

/** The answer to a server request for a feature this client did not declare. */
function notDeclared(method: string, capability: string): McpError {
  return new McpError(
    ErrorCode.MethodNotFound,
    `Method not found: ${method} (this client did not declare the "${capability}" capability)`,
  );
}

function modeNotDeclared(mode: string): McpError {
  return new McpError(
    ErrorCode.InvalidParams,
    `Invalid params: this client did not declare elicitation mode ${JSON.stringify(mode)}`,
  );
}
