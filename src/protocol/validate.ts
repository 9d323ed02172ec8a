import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import { jsonProblem } from '../jsonrpc/json-fidelity.js';
import type { Params } from '../jsonrpc/types.js';
import { createMessage, elicit } from './client-request-params.js';
import {
  idLike,
  implementation,
  isLoggingLevel,
  isNumber,
  isObject,
  LEVEL_LIST,
  NO_PARAMS,
  notificationMeta,
  optionalNumber,
  optionalObject,
  optionalString,
  optionalStringMap,
  type ParamsCheck,
  type Problem,
  requestMeta,
  requiredString,
} from './param-checks.js';
import { filterProblem } from './subscription-filter.js';
import { TASK_PARAM_CHECKS, taskParam } from './tasks.js';
import { Method } from './types.js';

export { isLoggingLevel } from './param-checks.js';

/*
 * Hand-written guards for the params of every MCP request and notification either peer receives.
 * Each check reports the first problem as a path relative to the value it was given
 * ('.name must be a string', ' must be an object'); the caller prepends its own path only when
 * there is a problem, so a valid message is checked without building a single string.
 */

function initialize(p: Params): Problem {
  if (typeof p.protocolVersion !== 'string') return '.protocolVersion must be a string';
  const caps = p.capabilities;
  if (!isObject(caps)) return '.capabilities must be an object';
  // The server reads these to decide what it may ask of the client.
  const capsProblem =
    optionalObject(caps, 'roots') ??
    optionalObject(caps, 'sampling') ??
    optionalObject(caps, 'elicitation') ??
    optionalObject(caps, 'experimental');
  if (capsProblem !== undefined) return '.capabilities' + capsProblem;
  const infoProblem = implementation(p.clientInfo);
  if (infoProblem !== undefined) return '.clientInfo' + infoProblem;
  return requestMeta(p);
}

function paginated(p: Params): Problem {
  return optionalString(p, 'cursor') ?? requestMeta(p);
}

function callTool(p: Params): Problem {
  return (
    requiredString(p, 'name') ??
    optionalObject(p, 'arguments') ??
    roundTrip(p) ??
    taskParam(p) ??
    requestMeta(p)
  );
}

/** resources/subscribe, resources/unsubscribe. */
function resourceUri(p: Params): Problem {
  return requiredString(p, 'uri') ?? requestMeta(p);
}

function readResource(p: Params): Problem {
  return requiredString(p, 'uri') ?? roundTrip(p) ?? requestMeta(p);
}

function getPrompt(p: Params): Problem {
  return requiredString(p, 'name') ?? optionalStringMap(p, 'arguments') ?? roundTrip(p) ?? requestMeta(p);
}

/** The retry of a multi-round-trip request (modern era): the client's answers and the state it echoes. */
function roundTrip(p: Params): Problem {
  return optionalObject(p, 'inputResponses') ?? optionalString(p, 'requestState');
}

/** subscriptions/listen: `notifications` is required (modern era; `taskIds` is the Tasks extension's). */
function listen(p: Params): Problem {
  const problem = filterProblem(p.notifications);
  return problem === undefined ? requestMeta(p) : '.notifications' + problem;
}

function complete(p: Params): Problem {
  const ref = p.ref;
  if (!isObject(ref)) return '.ref must be an object';
  if (ref.type === 'ref/prompt') {
    if (typeof ref.name !== 'string') return '.ref.name must be a string';
  } else if (ref.type === 'ref/resource') {
    if (typeof ref.uri !== 'string') return '.ref.uri must be a string';
  } else {
    return '.ref.type must be "ref/prompt" or "ref/resource"';
  }
  const argument = p.argument;
  if (!isObject(argument)) return '.argument must be an object';
  if (typeof argument.name !== 'string') return '.argument.name must be a string';
  if (typeof argument.value !== 'string') return '.argument.value must be a string';
  const context = p.context;
  if (context !== undefined) {
    if (!isObject(context)) return '.context must be an object';
    const problem = optionalStringMap(context, 'arguments');
    if (problem !== undefined) return '.context' + problem;
  }
  return requestMeta(p);
}

function setLevel(p: Params): Problem {
  return isLoggingLevel(p.level) ? requestMeta(p) : '.level must be one of ' + LEVEL_LIST;
}

function cancelled(p: Params): Problem {
  // 2025-11-25 lets requestId be absent only for tasks, which are cancelled through tasks/cancel here.
  return idLike('requestId', p.requestId) ?? optionalString(p, 'reason') ?? notificationMeta(p);
}

function progress(p: Params): Problem {
  const token = idLike('progressToken', p.progressToken);
  if (token !== undefined) return token;
  if (!isNumber(p.progress)) return '.progress must be a number';
  return optionalNumber(p, 'total') ?? optionalString(p, 'message') ?? notificationMeta(p);
}

function loggingMessage(p: Params): Problem {
  if (!isLoggingLevel(p.level)) return '.level must be one of ' + LEVEL_LIST;
  if (p.data === undefined) return '.data is required';
  return optionalString(p, 'logger') ?? notificationMeta(p);
}

function resourceUpdated(p: Params): Problem {
  return requiredString(p, 'uri') ?? notificationMeta(p);
}

function elicitationComplete(p: Params): Problem {
  return requiredString(p, 'elicitationId') ?? notificationMeta(p);
}

/** Every method's check. Null prototype: a method named "constructor" must find nothing. */
const checks: Readonly<Record<string, ParamsCheck | undefined>> = Object.assign(Object.create(null), {
  [Method.Initialize]: initialize,
  [Method.Ping]: requestMeta,
  [Method.ToolsList]: paginated,
  [Method.ToolsCall]: callTool,
  [Method.ResourcesList]: paginated,
  [Method.ResourcesTemplatesList]: paginated,
  [Method.ResourcesRead]: readResource,
  [Method.ResourcesSubscribe]: resourceUri,
  [Method.ResourcesUnsubscribe]: resourceUri,
  [Method.PromptsList]: paginated,
  [Method.PromptsGet]: getPrompt,
  [Method.CompletionComplete]: complete,
  [Method.ServerDiscover]: requestMeta,
  [Method.SubscriptionsListen]: listen,
  [Method.LoggingSetLevel]: setLevel,
  [Method.SamplingCreateMessage]: createMessage,
  [Method.ElicitationCreate]: elicit,
  [Method.RootsList]: requestMeta,
  [Method.Cancelled]: cancelled,
  [Method.Progress]: progress,
  [Method.Initialized]: notificationMeta,
  [Method.RootsListChanged]: notificationMeta,
  [Method.LoggingMessage]: loggingMessage,
  [Method.ResourceUpdated]: resourceUpdated,
  [Method.ResourceListChanged]: notificationMeta,
  [Method.ToolListChanged]: notificationMeta,
  [Method.PromptListChanged]: notificationMeta,
  [Method.ElicitationComplete]: elicitationComplete,
  [Method.SubscriptionsAcknowledged]: notificationMeta,
} satisfies Record<Method, ParamsCheck>);

/**
 * Why `params` are not valid for `method`, as a message naming the field
 * (e.g. `params.name must be a string`), or undefined when they are valid. Methods this library
 * does not know are not checked (undefined): the dispatcher answers those with -32601. For every
 * method it knows, a number JSON.parse overflowed to Infinity (1e400), anywhere in params, is invalid.
 * Allocates nothing when the params are valid.
 */
export function validateParams(method: string, params: Params | undefined): string | undefined {
  const check = checks[method] ?? TASK_PARAM_CHECKS[method];
  if (check === undefined) return undefined;
  if (params !== undefined && !isObject(params)) return 'params must be an object';
  // All of params, not only the fields checked: a number JSON.parse overflowed to Infinity (1e400) must
  // not reach a handler, which would compute with it and answer null for it.
  const problem = params === undefined ? check(NO_PARAMS) : (check(params) ?? jsonProblem(params));
  return problem === undefined ? undefined : 'params' + problem;
}

/** Throws the -32602 McpError a peer should receive when `params` are not valid for `method`. */
export function assertValidParams(method: string, params: Params | undefined): void {
  const problem = validateParams(method, params);
  if (problem !== undefined) throw new McpError(ErrorCode.InvalidParams, 'Invalid params: ' + problem);
}

/**
 * Why an initialize result cannot be trusted by a client, or undefined when it can: the fields
 * the client reads before anything else (version, capabilities, server identity) have their types.
 */
export function validateInitializeResult(result: unknown): string | undefined {
  if (!isObject(result)) return 'result must be an object';
  if (typeof result.protocolVersion !== 'string') return 'result.protocolVersion must be a string';
  const caps = result.capabilities;
  if (!isObject(caps)) return 'result.capabilities must be an object';
  const capsProblem =
    optionalObject(caps, 'tools') ??
    optionalObject(caps, 'resources') ??
    optionalObject(caps, 'prompts') ??
    optionalObject(caps, 'logging') ??
    optionalObject(caps, 'completions') ??
    optionalObject(caps, 'experimental');
  if (capsProblem !== undefined) return 'result.capabilities' + capsProblem;
  const infoProblem = implementation(result.serverInfo);
  if (infoProblem !== undefined) return 'result.serverInfo' + infoProblem;
  const problem = optionalString(result, 'instructions');
  return problem === undefined ? undefined : 'result' + problem;
}
