import type { Params } from '../jsonrpc/types.js';
import { isInputMethod } from './modern-types.js';
import { isObject, keyPath, type Problem } from './param-checks.js';
import { validateParams } from './validate.js';

/*
 * What a 2026 server asks of its client, checked before any of it reaches the client's handlers: the
 * `inputRequests` of an `input_required` result or of a task waiting for input. A 2025 server asks the same
 * things as requests, whose params the peer checks (`validateParams`); these get the same check, so a handler
 * sees the same params whichever era asked.
 */

/**
 * Where `value` is not an `InputRequests` (a path from it: `["name"].method must be …`), or undefined when it is:
 * an object whose every entry is `{method, params?}`, the method one a server may ask of a client, the params
 * what that method takes. Never throws, whatever `value` is.
 */
export function inputRequestsProblem(value: unknown): Problem {
  if (!isObject(value)) return ' must be an object of input requests by key';
  for (const key of Object.keys(value)) {
    const request = value[key];
    const at = keyPath(key);
    if (!isObject(request)) return at + ' must be an object ({method, params})';
    if (!isInputMethod(request.method))
      return at + '.method must be "elicitation/create", "sampling/createMessage" or "roots/list"';
    const problem = validateParams(request.method, request.params as Params | undefined);
    if (problem !== undefined) return at + '.' + problem;
  }
  return undefined;
}

/**
 * Where an `input_required` result is not one (`.requestState must be a string`), or undefined when it is: its
 * `inputRequests` as above, its `requestState` a string, and at least one of the two, as the spec requires (a
 * result with neither would have the client send the same request again unchanged).
 */
export function inputRequiredProblem(result: Record<string, unknown>): Problem {
  const { inputRequests, requestState } = result;
  if (inputRequests === undefined && requestState === undefined)
    return ' must carry inputRequests or requestState (or both)';
  if (requestState !== undefined && typeof requestState !== 'string') return '.requestState must be a string';
  if (inputRequests === undefined) return undefined;
  const problem = inputRequestsProblem(inputRequests);
  return problem === undefined ? undefined : '.inputRequests' + problem;
}
