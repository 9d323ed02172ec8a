import type { Params } from '../../jsonrpc/types.js';
import { questionOf } from '../../protocol/client-answers.js';
import type { InputRequest, InputRequests, InputResponses } from '../../protocol/modern-types.js';
import { answerOf, answersTo, responsePath } from '../client-answer.js';

/** The wire key of the n-th call a handler made to the client: stable across rounds, unique per request. */
export const callKey = (n: number): string => `mcpwire.${n}`;

/** One answered call: the method the handler called, and the client's result. */
interface Answer {
  m: string;
  r: unknown;
}

/**
 * What travels in the sealed `requestState` between rounds: the answers so far by call number, what the last
 * round asked (by call number for the handler's calls to the client, by key for its own `inputRequests`: the
 * method and the `questionOf` its params, which the answer is checked against), and the handler's own state
 * (`inputRequired({ state })`).
 */
export interface JournalState {
  a?: Record<string, Answer>;
  /** Call number → what the last round asked by that call (a bare method in tokens of earlier releases). */
  p?: Record<string, InputRequest | string>;
  /** The handler's own `inputRequests` of the last round, reduced to what their answers are checked against. */
  q?: InputRequests;
  u?: unknown;
}

/**
 * The record of a modern request's calls to the client across its rounds, so that the handler reads straight
 * through: the n-th call of this run is answered with the n-th answer of earlier rounds, and the calls it has
 * no answer for yet become the next round's `inputRequests`. It also holds the answers to the handler's own
 * `inputRequests` of the last round. Every answer is checked against what was asked, as the sealed state
 * says (never as the client says): a client cannot make a handler read an answer to a question not asked.
 */
export class ReplayJournal {
  /** Made on the first answer: most requests never ask the client anything. */
  private answers: Record<string, Answer> | undefined;
  private calls = 0;
  private asked: [number, InputRequest][] | undefined;
  /** The answers to the handler's own `inputRequests` of the last round, by key: `ctx.inputResponses`. */
  readonly ownAnswers: InputResponses | undefined;

  /**
   * Rebuilds the journal of the previous round: its answers, and the client's answers to what it asked.
   * Throws InvalidClientAnswerError (-32602) naming the field of the first answer that is wrong.
   */
  constructor(state: JournalState | undefined, responses: InputResponses | undefined) {
    // The state was decoded for this request alone: its answers are extended in place.
    this.answers = state?.a;
    this.ownAnswers = state?.q === undefined ? undefined : answersTo(state.q, responses);
    const asked = state?.p;
    if (asked === undefined || responses === undefined) return;
    for (const [n, question] of Object.entries(asked)) {
      const key = callKey(Number(n));
      // A missing answer is asked again (spec: MRTR, a new input_required, not an error).
      if (!Object.hasOwn(responses, key)) continue;
      const { method, params } =
        typeof question === 'string' ? { method: question, params: undefined } : question;
      this.answers ??= {};
      this.answers[n] = { m: method, r: answerOf(method, params, responses[key], responsePath(key)) };
    }
  }

  /**
   * The answer to the next call, or undefined when the client has not answered it yet (it is then recorded
   * to be asked). Throws when the handler calls another method at this point than it did in the round that
   * asked (it must be deterministic).
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

  /**
   * The state of the next round, with the handler's own state and requests (`inputRequired`), or undefined
   * when there is nothing to carry.
   */
  state(userState: unknown, ownRequests: InputRequests | undefined): JournalState | undefined {
    const answered = this.answers !== undefined && Object.keys(this.answers).length > 0;
    if (!answered && this.asked === undefined && ownRequests === undefined && userState === undefined) {
      return undefined;
    }
    const state: JournalState = {};
    if (answered) state.a = this.answers;
    if (this.asked !== undefined) state.p = Object.fromEntries(this.asked.map(([n, r]) => [n, question(r)]));
    if (ownRequests !== undefined) {
      state.q = Object.fromEntries(Object.entries(ownRequests).map(([key, r]) => [key, question(r)]));
    }
    if (userState !== undefined) state.u = userState;
    return state;
  }
}

/** A request reduced to what its answer is checked against. */
function question(request: InputRequest): InputRequest {
  const params = questionOf(request.method, request.params);
  return params === undefined ? { method: request.method } : { method: request.method, params };
}
