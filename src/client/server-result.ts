import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import { faultOf } from '../protocol/param-checks.js';
import { serverResultProblem } from '../protocol/server-results.js';

/**
 * The server answered a request with a result that is not one for its method: a `tools/list` whose tool has no
 * name, a `tools/call` whose content is not an array of content blocks, a `resources/read` content with neither
 * text nor blob. No caller sees such a result; the call rejects with this instead (`field` says where, from
 * `result`), as the server's fault it is.
 */
export class InvalidServerResultError extends McpError {
  override name = 'InvalidServerResultError';
  constructor(
    /** The request the server answered. */
    readonly method: string,
    /** Where the result is wrong, as a path from it: `result.tools[2].name`. */
    readonly field: string,
    /** What is wrong there: `must be a string`. */
    readonly problem: string,
  ) {
    super(
      ErrorCode.InternalError,
      `The server answered ${method} with a result that is not one: ${field} ${problem}`,
      { method, field },
    );
  }
}

/** `result` when it is one for `method`; otherwise throws InvalidServerResultError. */
export function checkedResult<R>(method: string, result: R): R {
  const problem = serverResultProblem(method, result);
  if (problem === undefined) return result;
  throw invalidResult(method, problem);
}

/** The error for a result of `method` that is not one, where and why as `problem` (a Problem from the result). */
export function invalidResult(method: string, problem: string): InvalidServerResultError {
  const fault = faultOf(problem);
  return new InvalidServerResultError(method, 'result' + fault.at, fault.problem);
}
