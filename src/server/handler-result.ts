import { serverResultProblem } from '../protocol/server-results.js';
import { InputRequired } from './input-required.js';

/**
 * What a handler answered `method` with (`who` names the handler: `Tool "echo"`), checked as a client will check it
 * (`serverResultProblem`), or `InputRequired` as it is. One that is not a result of `method` is the server author's
 * mistake: it is thrown as a plain Error, so the client gets -32603 with its message and the server's onerror hears
 * of it, rather than sent for the client to fail on.
 */
export function fitting<T>(method: string, who: string, outcome: T | PromiseLike<T>): T | Promise<T> {
  return typeof (outcome as PromiseLike<T> | null)?.then === 'function'
    ? Promise.resolve(outcome).then((settled) => fits(method, who, settled))
    : fits(method, who, outcome as T);
}

/** `fitting`, for an answer known to be settled already. */
export function fits<T>(method: string, who: string, outcome: T): T {
  if (outcome instanceof InputRequired) return outcome;
  const problem = serverResultProblem(method, outcome);
  if (problem === undefined) return outcome;
  throw new Error(`${who} answered ${method} with a result that is not one: result${problem}`);
}
