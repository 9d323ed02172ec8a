import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import { jsonProblem } from '../jsonrpc/json-fidelity.js';
import type { Params } from '../jsonrpc/types.js';
import { LOGGING_LEVELS, type LoggingLevel, Method } from './types.js';

/*
 * Hand-written guards for the params of every MCP request and notification either peer receives.
 * Each check reports the first problem as a path relative to the value it was given
 * ('.name must be a string', ' must be an object'); the caller prepends its own path only when
 * there is a problem, so a valid message is checked without building a single string.
 */

type Problem = string | undefined;
type ParamsCheck = (params: Params) => Problem;

/** Stands in for absent params: methods whose params are optional see an empty object. */
const NO_PARAMS: Params = Object.freeze({});

const LEVEL_LIST = LOGGING_LEVELS.map((level) => `"${level}"`).join(', ');

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A JSON-RPC id or a progress token, named by `key`: a string or a safe integer. */
function idLike(key: string, v: unknown): Problem {
  if (typeof v === 'string' || Number.isSafeInteger(v)) return undefined;
  // Beyond 2^53 JSON.parse has rounded it: echoed in a progress notification, it would name another token.
  return Number.isInteger(v)
    ? '.' + key + ' must be a safe integer (at most 2^53-1 in magnitude) or a string'
    : '.' + key + ' must be a string or an integer';
}

function isNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

function isStringArray(v: unknown): v is string[] {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return false;
  return true;
}

/** True when `v` is one of the spec's logging levels. */
export function isLoggingLevel(v: unknown): v is LoggingLevel {
  return typeof v === 'string' && LOGGING_LEVELS.includes(v as LoggingLevel);
}

// ---- Field helpers (the key is a literal at every call site; messages are built on failure only) ----

function requiredString(o: Record<string, unknown>, key: string): Problem {
  return typeof o[key] === 'string' ? undefined : '.' + key + ' must be a string';
}

function optionalString(o: Record<string, unknown>, key: string): Problem {
  const v = o[key];
  return v === undefined || typeof v === 'string' ? undefined : '.' + key + ' must be a string';
}

function optionalNumber(o: Record<string, unknown>, key: string): Problem {
  const v = o[key];
  return v === undefined || isNumber(v) ? undefined : '.' + key + ' must be a number';
}

function optionalBoolean(o: Record<string, unknown>, key: string): Problem {
  const v = o[key];
  return v === undefined || typeof v === 'boolean' ? undefined : '.' + key + ' must be a boolean';
}

function optionalObject(o: Record<string, unknown>, key: string): Problem {
  const v = o[key];
  return v === undefined || isObject(v) ? undefined : '.' + key + ' must be an object';
}

function optionalStringArray(o: Record<string, unknown>, key: string): Problem {
  const v = o[key];
  return v === undefined || isStringArray(v) ? undefined : '.' + key + ' must be an array of strings';
}

/** An optional `{ [key]: string }` such as prompt arguments. */
function optionalStringMap(o: Record<string, unknown>, key: string): Problem {
  const map = o[key];
  if (map === undefined) return undefined;
  if (!isObject(map)) return '.' + key + ' must be an object';
  for (const name in map) {
    if (typeof map[name] !== 'string') return '.' + key + '.' + name + ' must be a string';
  }
  return undefined;
}

function requestMeta(p: Params): Problem {
  const meta = p._meta;
  if (meta === undefined) return undefined;
  if (!isObject(meta)) return '._meta must be an object';
  const token = meta.progressToken;
  if (token === undefined) return undefined;
  const problem = idLike('progressToken', token);
  return problem === undefined ? undefined : '._meta' + problem;
}

function notificationMeta(p: Params): Problem {
  return optionalObject(p, '_meta');
}

/** `clientInfo` / `serverInfo`. */
function implementation(info: unknown): Problem {
  if (!isObject(info)) return ' must be an object';
  return requiredString(info, 'name') ?? requiredString(info, 'version');
}

// ---- Content ----

/** text, image and audio blocks, whose `type` the caller has already read. */
function textOrMedia(block: Record<string, unknown>): Problem {
  if (block.type === 'text') return requiredString(block, 'text');
  return requiredString(block, 'data') ?? requiredString(block, 'mimeType');
}

/** A block of a tool result or prompt message. */
function contentBlock(block: unknown): Problem {
  if (!isObject(block)) return ' must be an object';
  switch (block.type) {
    case 'text':
    case 'image':
    case 'audio':
      return textOrMedia(block);
    case 'resource_link':
      return requiredString(block, 'uri') ?? requiredString(block, 'name');
    case 'resource': {
      const resource = block.resource;
      if (!isObject(resource)) return '.resource must be an object';
      if (typeof resource.uri !== 'string') return '.resource.uri must be a string';
      if (typeof resource.text !== 'string' && typeof resource.blob !== 'string') {
        return '.resource must have a string "text" or "blob"';
      }
      return undefined;
    }
    default:
      return '.type must be "text", "image", "audio", "resource_link" or "resource"';
  }
}

/** A block of a sampling message. */
function samplingBlock(block: unknown): Problem {
  if (!isObject(block)) return ' must be an object';
  switch (block.type) {
    case 'text':
    case 'image':
    case 'audio':
      return textOrMedia(block);
    case 'tool_use':
      return (
        requiredString(block, 'id') ??
        requiredString(block, 'name') ??
        (isObject(block.input) ? undefined : '.input must be an object')
      );
    case 'tool_result': {
      const problem = requiredString(block, 'toolUseId');
      if (problem !== undefined) return problem;
      const content = block.content;
      if (!Array.isArray(content)) return '.content must be an array';
      for (let i = 0; i < content.length; i++) {
        const inner = contentBlock(content[i]);
        if (inner !== undefined) return '.content[' + i + ']' + inner;
      }
      return optionalObject(block, 'structuredContent') ?? optionalBoolean(block, 'isError');
    }
    default:
      return '.type must be "text", "image", "audio", "tool_use" or "tool_result"';
  }
}

function samplingMessage(message: unknown): Problem {
  if (!isObject(message)) return ' must be an object';
  if (message.role !== 'user' && message.role !== 'assistant') return '.role must be "user" or "assistant"';
  const content = message.content;
  if (!Array.isArray(content)) {
    const problem = samplingBlock(content);
    return problem === undefined ? undefined : '.content' + problem;
  }
  let toolResults = 0;
  for (let i = 0; i < content.length; i++) {
    const problem = samplingBlock(content[i]);
    if (problem !== undefined) return '.content[' + i + ']' + problem;
    if ((content[i] as Record<string, unknown>).type === 'tool_result') toolResults++;
  }
  // Spec (sampling, message content constraints): tool results travel alone in their message.
  if (toolResults !== 0 && toolResults !== content.length) {
    return '.content must not mix tool_result with other content';
  }
  return undefined;
}

/** A tool offered to the model in a sampling request. */
function samplingTool(tool: unknown): Problem {
  if (!isObject(tool)) return ' must be an object';
  if (typeof tool.name !== 'string') return '.name must be a string';
  const schema = tool.inputSchema;
  if (!isObject(schema)) return '.inputSchema must be an object';
  if (schema.type !== 'object') return '.inputSchema.type must be "object"';
  return undefined;
}

// ---- Elicitation form schemas ----

/** `oneOf` / `anyOf` of titled enum values. */
function enumOptions(options: unknown): Problem {
  if (!Array.isArray(options)) return ' must be an array';
  for (let i = 0; i < options.length; i++) {
    const option = options[i];
    if (!isObject(option)) return '[' + i + '] must be an object';
    const problem = requiredString(option, 'const') ?? requiredString(option, 'title');
    if (problem !== undefined) return '[' + i + ']' + problem;
  }
  return undefined;
}

function primitiveSchema(schema: unknown): Problem {
  if (!isObject(schema)) return ' must be an object';
  switch (schema.type) {
    case 'string': {
      const values = schema.enum;
      if (values !== undefined && !isStringArray(values)) return '.enum must be an array of strings';
      if (schema.oneOf === undefined) return undefined;
      const problem = enumOptions(schema.oneOf);
      return problem === undefined ? undefined : '.oneOf' + problem;
    }
    case 'number':
    case 'integer':
    case 'boolean':
      return undefined;
    case 'array': {
      const items = schema.items;
      if (!isObject(items)) return '.items must be an object';
      if (items.enum !== undefined) {
        return isStringArray(items.enum) ? undefined : '.items.enum must be an array of strings';
      }
      if (items.anyOf === undefined) return '.items must have "enum" or "anyOf"';
      const problem = enumOptions(items.anyOf);
      return problem === undefined ? undefined : '.items.anyOf' + problem;
    }
    default:
      return '.type must be "string", "number", "integer", "boolean" or "array"';
  }
}

function requestedSchema(schema: unknown): Problem {
  if (!isObject(schema)) return ' must be an object';
  if (schema.type !== 'object') return '.type must be "object"';
  const properties = schema.properties;
  if (!isObject(properties)) return '.properties must be an object';
  for (const name in properties) {
    const problem = primitiveSchema(properties[name]);
    if (problem !== undefined) return '.properties.' + name + problem;
  }
  return optionalStringArray(schema, 'required');
}

// ---- One check per method ----

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
  return requiredString(p, 'name') ?? optionalObject(p, 'arguments') ?? roundTrip(p) ?? requestMeta(p);
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
  const filter = p.notifications;
  if (!isObject(filter)) return '.notifications must be an object (the subscription filter)';
  const problem =
    optionalBoolean(filter, 'toolsListChanged') ??
    optionalBoolean(filter, 'promptsListChanged') ??
    optionalBoolean(filter, 'resourcesListChanged') ??
    optionalStringArray(filter, 'resourceSubscriptions') ??
    optionalStringArray(filter, 'taskIds');
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

function createMessage(p: Params): Problem {
  const messages = p.messages;
  if (!Array.isArray(messages)) return '.messages must be an array';
  for (let i = 0; i < messages.length; i++) {
    const problem = samplingMessage(messages[i]);
    if (problem !== undefined) return '.messages[' + i + ']' + problem;
  }
  if (!isNumber(p.maxTokens)) return '.maxTokens must be a number';
  const include = p.includeContext;
  if (include !== undefined && include !== 'none' && include !== 'thisServer' && include !== 'allServers') {
    return '.includeContext must be "none", "thisServer" or "allServers"';
  }
  const problem =
    optionalString(p, 'systemPrompt') ??
    optionalNumber(p, 'temperature') ??
    optionalStringArray(p, 'stopSequences') ??
    optionalObject(p, 'modelPreferences') ??
    optionalObject(p, 'metadata');
  if (problem !== undefined) return problem;
  const tools = p.tools;
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return '.tools must be an array';
    for (let i = 0; i < tools.length; i++) {
      const toolProblem = samplingTool(tools[i]);
      if (toolProblem !== undefined) return '.tools[' + i + ']' + toolProblem;
    }
  }
  const choice = p.toolChoice;
  if (choice !== undefined) {
    if (!isObject(choice)) return '.toolChoice must be an object';
    const mode = choice.mode;
    if (mode !== undefined && mode !== 'auto' && mode !== 'required' && mode !== 'none') {
      return '.toolChoice.mode must be "auto", "required" or "none"';
    }
  }
  return requestMeta(p);
}

function elicit(p: Params): Problem {
  if (typeof p.message !== 'string') return '.message must be a string';
  const mode = p.mode;
  if (mode === 'url') {
    if (typeof p.elicitationId !== 'string') return '.elicitationId must be a string';
    // The client shows this URL to the user and may open it: it must at least parse.
    if (typeof p.url !== 'string' || !URL.canParse(p.url)) return '.url must be a valid URL';
  } else if (mode === undefined || mode === 'form') {
    const problem = requestedSchema(p.requestedSchema);
    if (problem !== undefined) return '.requestedSchema' + problem;
  } else {
    return '.mode must be "form" or "url"';
  }
  return requestMeta(p);
}

function cancelled(p: Params): Problem {
  // The spec lets requestId be absent only for tasks, which mcpwire does not implement.
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
  const check = checks[method];
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
