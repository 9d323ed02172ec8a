import type { Params } from '../jsonrpc/types.js';
import { samplingMessage } from './client-request-params.js';
import { contentFault, type Fault } from './elicitation-content.js';
import {
  faultOf,
  isObject,
  optionalObject,
  optionalString,
  type Problem,
  requiredString,
} from './param-checks.js';
import { Method } from './types.js';

/*
 * What a client answers a server's request (`elicitation/create`, `sampling/createMessage`, `roots/list`),
 * checked against the request it answers, the same in both eras: the result of a real request on a 2025
 * session, a value of `inputResponses` on a 2026 retry or `tasks/update`.
 */

/** A client's answer as a handler may see it, or where it is wrong (a path from the answer: `.content.age`). */
export type CheckedAnswer =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | ({ readonly ok: false } & Fault);

const NO_CONTENT: Record<string, unknown> = Object.freeze({});

/**
 * `result` as the answer to `method` asked with `params`: an ElicitResult whose action is accept, decline or
 * cancel and whose accepted form content fits the `requestedSchema` (content sent with anything else is left
 * out: the spec has none there); a CreateMessageResult (role, content blocks of the allowed types, model, a
 * tool_use only of a tool the request offered); a ListRootsResult whose roots are file:// URIs. Another
 * method's result is taken as it is. Never throws, whatever `result` is.
 */
export function checkClientAnswer(
  method: string,
  params: Params | undefined,
  result: unknown,
): CheckedAnswer {
  if (!isObject(result)) return refused('', `must be an object (the result of ${method})`);
  if (result.jsonrpc !== undefined && (result.result !== undefined || result.error !== undefined)) {
    return refused('', `must be the bare result of ${method}, not a JSON-RPC response`);
  }
  const meta = optionalObject(result, '_meta');
  if (meta !== undefined) return fromProblem(meta);
  switch (method) {
    case Method.ElicitationCreate:
      return elicitAnswer(params, result);
    case Method.SamplingCreateMessage:
      return sampleAnswer(params, result);
    case Method.RootsList:
      return rootsAnswer(result);
    default:
      return accepted(result);
  }
}

/**
 * The part of a request's params that `checkClientAnswer` reads (a form's schema, URL mode, the names of the
 * tools offered to sampling), small enough to keep in a sealed requestState until the answer comes: checking
 * against it decides as checking against the whole params does.
 */
export function questionOf(method: string, params: Params | undefined): Params | undefined {
  switch (method) {
    case Method.ElicitationCreate:
      return params?.mode === 'url' ? { mode: 'url' } : { requestedSchema: params?.requestedSchema };
    case Method.SamplingCreateMessage: {
      const tools = params?.tools;
      if (!Array.isArray(tools)) return undefined;
      return { tools: tools.map((tool) => ({ name: isObject(tool) ? tool.name : undefined })) };
    }
    default:
      return undefined;
  }
}

const accepted = (value: Record<string, unknown>): CheckedAnswer => ({ ok: true, value });
const refused = (at: string, problem: string): CheckedAnswer => ({ ok: false, at, problem });

/** A Problem of the params checks, as a refusal. */
function fromProblem(problem: string): CheckedAnswer {
  return { ok: false, ...faultOf(problem) };
}

function elicitAnswer(params: Params | undefined, result: Record<string, unknown>): CheckedAnswer {
  const action = result.action;
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') {
    return refused('.action', 'must be "accept", "decline" or "cancel"');
  }
  if (action !== 'accept' || params?.mode === 'url') {
    if (result.content === undefined) return accepted(result);
    const rest = { ...result };
    delete rest.content;
    return accepted(rest);
  }
  const content = result.content;
  if (content !== undefined && !isObject(content)) {
    return refused('.content', "must be an object (the form's values by property name)");
  }
  const fault = contentFault(params?.requestedSchema, content ?? NO_CONTENT);
  return fault === undefined ? accepted(result) : refused('.content' + fault.at, fault.problem);
}

function sampleAnswer(params: Params | undefined, result: Record<string, unknown>): CheckedAnswer {
  const problem =
    samplingMessage(result) ?? requiredString(result, 'model') ?? optionalString(result, 'stopReason');
  if (problem !== undefined) return fromProblem(problem);
  const content = result.content;
  const blocks = Array.isArray(content) ? content : [content];
  const tools = Array.isArray(params?.tools) ? params.tools : [];
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i] as Record<string, unknown>;
    if (block.type !== 'tool_use') continue;
    if (tools.some((tool) => isObject(tool) && tool.name === block.name)) continue;
    // A model can call only the tools it was offered.
    const at = Array.isArray(content) ? `.content[${i}]` : '.content';
    if (tools.length === 0)
      return refused(at + '.type', 'must not be "tool_use": the request offered no tools');
    const names = tools.map((tool) => JSON.stringify((tool as Record<string, unknown>).name)).join(', ');
    return refused(at + '.name', `must name a tool the request offered (${names})`);
  }
  return accepted(result);
}

const FILE_URI = /^file:\/\//i;

function rootsAnswer(result: Record<string, unknown>): CheckedAnswer {
  const roots = result.roots;
  if (!Array.isArray(roots)) return refused('.roots', 'must be an array');
  for (let i = 0; i < roots.length; i++) {
    const problem = root(roots[i]);
    if (problem !== undefined) return fromProblem(`.roots[${i}]${problem}`);
  }
  return accepted(result);
}

/** A Root: a file:// URI (spec: "must start with file:// for now"), and an optional name. */
function root(value: unknown): Problem {
  if (!isObject(value)) return ' must be an object';
  const uri = value.uri;
  if (typeof uri !== 'string' || !FILE_URI.test(uri)) return '.uri must be a file:// URI';
  return optionalString(value, 'name') ?? optionalObject(value, '_meta');
}
