import { inputRequestsProblem } from '../protocol/input-requests.js';
import type { InputRequests } from '../protocol/modern-types.js';

/**
 * A handler's answer that it needs the client first (a multi-round-trip request): what to ask, by key, and
 * state of its own to get back on the retry as `ctx.requestState`. The server seals the state (HMAC), so a
 * client cannot change it. Made by `inputRequired`; a tool, prompt or resource handler returns it.
 */
export class InputRequired {
  /** @internal Use `inputRequired`. */
  constructor(
    readonly inputRequests: InputRequests | undefined,
    readonly state: unknown,
  ) {}
}

/**
 * Ends this round of a request with `input_required`: the client fulfils `inputRequests` (elicitation,
 * sampling, roots) and sends the request again; the handler then runs again and reads the answers from
 * `ctx.inputResponses` by key and its `state` from `ctx.requestState`. On a legacy session the server asks
 * the client itself (server-to-client requests) and runs the handler again the same way, so one handler
 * serves both eras. Give `inputRequests`, `state`, or both. Throws on a request of another method, or params
 * that method does not take.
 */
export function inputRequired(round: { inputRequests?: InputRequests; state?: unknown }): InputRequired {
  const { inputRequests, state } = round;
  if (inputRequests === undefined && state === undefined) {
    throw new Error('inputRequired needs inputRequests, state, or both');
  }
  // What a client would refuse is refused here, where the handler's author reads why.
  const problem = inputRequests === undefined ? undefined : inputRequestsProblem(inputRequests);
  if (problem !== undefined) throw new Error(`inputRequired: inputRequests${problem}`);
  return new InputRequired(inputRequests, state);
}
