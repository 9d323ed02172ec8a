import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { Params } from '../jsonrpc/types.js';
import type { InputRequest, InputRequests, InputResponses } from '../protocol/modern-types.js';
import { Method } from '../protocol/types.js';

/** The wire key of the n-th call a handler made to the client: stable across rounds, unique per request. */
export const callKey = (n: number): string => `mcpwire.${n}`;

/** One answered call: the method the handler called, and the client's result. */
interface Answer {
  m: string;
  r: unknown;
}

/**
 * What travels in the sealed `requestState` between rounds: the answers so far by call number, the call
 * numbers the last round asked, and the handler's own state (`inputRequired({ state })`).
 */
export interface JournalState {
  a?: Record<string, Answer>;
  /** Call number → method, of the calls the last round asked. */
  p?: Record<string, string>;
  u?: unknown;
}

/**
 * The record of a modern request's calls to the client across its rounds, so that the handler reads straight
 * through: the n-th call of this run is answered with the n-th answer of earlier rounds, and the calls it has
 * no answer for yet become the next round's `inputRequests`.
 */
export class ReplayJournal {
  /** Made on the first answer: most requests never ask the client anything. */
  private answers: Record<string, Answer> | undefined;
  private calls = 0;
  private asked: [number, InputRequest][] | undefined;

  /** Rebuilds the journal of the previous round: its answers, and the client's answers to what it asked. */
  constructor(state: JournalState | undefined, responses: InputResponses | undefined) {
    // The state was decoded for this request alone: its answers are extended in place.
    this.answers = state?.a;
    const asked = state?.p;
    if (asked === undefined) return;
    for (const [n, method] of Object.entries(asked)) {
      const key = callKey(Number(n));
      const result = responses?.[key];
      // A missing answer is asked again (spec: MRTR, a new input_required, not an error).
      if (result === undefined) continue;
      checkResult(method, key, result);
      this.answers ??= {};
      this.answers[n] = { m: method, r: result };
    }
  }

  /**
   * The answer to the next call, or undefined when the client has not answered it yet (it is then recorded
   * to be asked). Throws when the handler calls another method at this point than it did in the round that
   * asked (it must be deterministic). The constructor throws -32602 for an answer that is not a result of the
   * method asked.
   */
  next(method: string, params: Params | undefined): unknown {
    const n = this.calls++;
    const answer = this.answers?.[n];
    if (answer !== undefined) {
      if (answer.m !== method) {
        throw new Error(
          `The handler called ${method} where it called ${answer.m} in an earlier round: a handler that asks the client must make the same calls in the same order each time it runs`,
        );
      }
      return answer.r;
    }
    const request: InputRequest =
      params === undefined
        ? { method: method as InputRequest['method'] }
        : { method: method as InputRequest['method'], params };
    this.asked ??= [];
    this.asked.push([n, request]);
    return undefined;
  }

  /** True when this run asked for something the client has not answered. */
  get waiting(): boolean {
    return this.asked !== undefined;
  }

  /** This round's requests, by key. */
  inputRequests(): InputRequests | undefined {
    if (this.asked === undefined) return undefined;
    const requests: InputRequests = {};
    for (const [n, request] of this.asked) requests[callKey(n)] = request;
    return requests;
  }

  /** The state of the next round, or undefined when there is nothing to carry. */
  state(userState: unknown): JournalState | undefined {
    const answered = this.answers !== undefined && Object.keys(this.answers).length > 0;
    if (!answered && this.asked === undefined && userState === undefined) return undefined;
    const state: JournalState = {};
    if (answered) state.a = this.answers;
    if (this.asked !== undefined) state.p = Object.fromEntries(this.asked.map(([n, r]) => [n, r.method]));
    if (userState !== undefined) state.u = userState;
    return state;
  }
}

const ELICIT_ACTIONS = new Set(['accept', 'decline', 'cancel']);

/** A client's answer must be the bare result of the method asked (spec: InputResponses). */
function checkResult(method: string, key: string, result: unknown): void {
  const r = result as Record<string, unknown> | null;
  let ok = typeof r === 'object' && r !== null && !Array.isArray(r);
  if (ok) {
    if (method === Method.ElicitationCreate) ok = ELICIT_ACTIONS.has(r!.action as string);
    else if (method === Method.SamplingCreateMessage)
      ok = typeof r!.role === 'string' && typeof r!.content === 'object';
    else if (method === Method.RootsList) ok = Array.isArray(r!.roots);
  }
  if (!ok) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Invalid params: inputResponses["${key}"] must be the result of ${method} (a bare result object, not a JSON-RPC response)`,
      { key },
    );
  }
}
