import {
  contentBlock,
  isObject,
  isStringArray,
  optionalBoolean,
  optionalNumber,
  optionalObject,
  optionalString,
  type Problem,
  requiredString,
} from './param-checks.js';
import { Method } from './types.js';

/*
 * What a server answers the requests a client reads the result of (`tools/list`, `tools/call`, `resources/read`,
 * …), checked before anyone reads it: a client's caller, or a bridge's client. The fields each result must have
 * are checked, as both eras give them; more fields are left alone, as the spec allows them.
 */

/**
 * Where `result`, the answer to `method`, is not one (a path from the result: `.tools[2].name must be a string`),
 * or undefined when it is, or when `method` is not one whose result is checked. `tools/call` is checked as a call
 * answered at once: a task-augmented call's result is a task, not this. Never throws, whatever `result` is.
 */
export function serverResultProblem(method: string, result: unknown): Problem {
  if (!isObject(result)) return ' must be an object';
  const check = RESULTS[method];
  return check === undefined ? undefined : (check(result) ?? optionalObject(result, '_meta'));
}

type ResultCheck = (result: Record<string, unknown>) => Problem;

const RESULTS: Readonly<Record<string, ResultCheck>> = {
  [Method.ToolsList]: page('tools', tool),
  // A tool with an outputSchema may leave `content` out (spec 2025-06-18 on); the SDKs read it as empty.
  [Method.ToolsCall]: (r) =>
    (r.content === undefined ? undefined : blocks(r, 'content')) ?? optionalBoolean(r, 'isError'),
  [Method.ResourcesList]: page('resources', resource),
  [Method.ResourcesTemplatesList]: page('resourceTemplates', template),
  [Method.ResourcesRead]: (r) => items(r, 'contents', contents),
  [Method.PromptsList]: page('prompts', prompt),
  [Method.PromptsGet]: (r) => optionalString(r, 'description') ?? items(r, 'messages', promptMessage),
  [Method.CompletionComplete]: completion,
};

/** One page of a list: its items under `key`, and the cursor of the next page. */
function page(key: string, item: (value: Record<string, unknown>) => Problem): ResultCheck {
  return (r) => items(r, key, item) ?? optionalString(r, 'nextCursor');
}

/** The array under `key`, each item an object that `item` finds no problem with. */
function items(
  r: Record<string, unknown>,
  key: string,
  item: (value: Record<string, unknown>) => Problem,
): Problem {
  const list = r[key];
  if (!Array.isArray(list)) return '.' + key + ' must be an array';
  for (let i = 0; i < list.length; i++) {
    const value = list[i];
    const problem = isObject(value) ? item(value) : ' must be an object';
    if (problem !== undefined) return '.' + key + '[' + i + ']' + problem;
  }
  return undefined;
}

/** The content blocks under `key`. */
function blocks(r: Record<string, unknown>, key: string): Problem {
  const list = r[key];
  if (!Array.isArray(list)) return '.' + key + ' must be an array';
  for (let i = 0; i < list.length; i++) {
    const problem = contentBlock(list[i]);
    if (problem !== undefined) return '.' + key + '[' + i + ']' + problem;
  }
  return undefined;
}

/** What every listed entry has: a name, and optionally a title and a description. */
function named(v: Record<string, unknown>): Problem {
  return requiredString(v, 'name') ?? optionalString(v, 'title') ?? optionalString(v, 'description');
}

function tool(v: Record<string, unknown>): Problem {
  // Any JSON Schema object (2026-07-28 allows every 2020-12 keyword); a client reads it before each call.
  return (
    named(v) ??
    (isObject(v.inputSchema) ? undefined : '.inputSchema must be an object (a JSON Schema)') ??
    optionalObject(v, 'outputSchema') ??
    optionalObject(v, 'annotations')
  );
}

function resource(v: Record<string, unknown>): Problem {
  return requiredString(v, 'uri') ?? named(v) ?? optionalString(v, 'mimeType') ?? optionalNumber(v, 'size');
}

function template(v: Record<string, unknown>): Problem {
  return requiredString(v, 'uriTemplate') ?? named(v) ?? optionalString(v, 'mimeType');
}

/** One resource's contents, as text or as a base64 blob. */
function contents(v: Record<string, unknown>): Problem {
  const problem = requiredString(v, 'uri') ?? optionalString(v, 'mimeType');
  if (problem !== undefined) return problem;
  if (typeof v.text === 'string' || typeof v.blob === 'string') return undefined;
  return ' must have a string "text" or "blob"';
}

function prompt(v: Record<string, unknown>): Problem {
  const problem = named(v);
  if (problem !== undefined || v.arguments === undefined) return problem;
  return items(v, 'arguments', (a) => named(a) ?? optionalBoolean(a, 'required'));
}

function promptMessage(v: Record<string, unknown>): Problem {
  if (v.role !== 'user' && v.role !== 'assistant') return '.role must be "user" or "assistant"';
  const problem = contentBlock(v.content);
  return problem === undefined ? undefined : '.content' + problem;
}

function completion(r: Record<string, unknown>): Problem {
  const c = r.completion;
  if (!isObject(c)) return '.completion must be an object';
  if (!isStringArray(c.values)) return '.completion.values must be an array of strings';
  const problem = optionalNumber(c, 'total') ?? optionalBoolean(c, 'hasMore');
  return problem === undefined ? undefined : '.completion' + problem;
}
