import type { Params } from '../jsonrpc/types.js';
import {
  contentBlock,
  isNumber,
  isObject,
  isStringArray,
  optionalBoolean,
  optionalNumber,
  optionalObject,
  optionalString,
  optionalStringArray,
  type Problem,
  requestMeta,
  requiredString,
  textOrMedia,
} from './param-checks.js';

/*
 * The params of what a server asks of a client (`sampling/createMessage`, `elicitation/create`): a client
 * checks them before its handlers see them.
 */

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

/** A message of a sampling conversation, or a CreateMessageResult (which is one, with its model). */
export function samplingMessage(message: unknown): Problem {
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

export function createMessage(p: Params): Problem {
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

export function elicit(p: Params): Problem {
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
