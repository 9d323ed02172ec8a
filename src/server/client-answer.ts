import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { Params } from '../jsonrpc/types.js';
import { checkClientAnswer } from '../protocol/client-answers.js';
import type { InputRequests, InputResponses } from '../protocol/modern-types.js';
import { keyPath } from '../protocol/param-checks.js';

/**
 * The client answered a request of the server (`elicitation/create`, `sampling/createMessage`, `roots/list`)
 * with something that is not an answer to it: form content that does not fit the requested schema, an
 * unknown action, a sampling result of the wrong shape, a root that is no file:// URI. No handler sees such an
 * answer. On a 2025-11-25 session, `ctx.elicit`, `ctx.createMessage` and `ctx.listRoots` reject with it (a
 * handler may catch it, and ask again); uncaught, the request fails with it. In the 2026-07-28 era the retry
 * carrying the answer fails with it before the handler runs, and so does a `tasks/update`: the client can send
 * a corrected answer. On the wire it is -32602 (Invalid params), its data `{ method, field }`.
 */
export class InvalidClientAnswerError extends McpError {
  override name = 'InvalidClientAnswerError';
  constructor(
    /** The request the client answered. */
    readonly method: string,
    /**
     * Where the answer is wrong, as a path from what carried it: `result.content.age` for the result of a real
     * request, `inputResponses.user_name.content.age` for an answer in a 2026 retry or a `tasks/update`.
     */
    readonly field: string,
    /** What is wrong there: `must be an integer`. */
    readonly problem: string,
  ) {
    super(ErrorCode.InvalidParams, `Invalid answer to ${method} from the client: ${field} ${problem}`, {
      method,
      field,
    });
  }
}

/**
 * The client's `result` to `method` asked with `params` (the whole params, or their `questionOf`), as a
 * handler may see it; throws InvalidClientAnswerError naming the field from `root`.
 */
export function answerOf(
  method: string,
  params: Params | undefined,
  result: unknown,
  root: string,
): Record<string, unknown> {
  const checked = checkClientAnswer(method, params, result);
  if (checked.ok) return checked.value;
  throw new InvalidClientAnswerError(method, root + checked.at, checked.problem);
}

/** Where an answer carried under `key` of a request's `inputResponses` starts. */
export const responsePath = (key: string): string => 'inputResponses' + keyPath(key);

/**
 * The answers in `responses` to `asked` (requests by key, or their `questionOf`), each checked against its
 * request; keys not asked are left out (spec: MRTR, the server ignores what it does not need), and undefined
 * when none was answered. Throws InvalidClientAnswerError for the first answer that is wrong.
 */
export function answersTo(
  asked: InputRequests,
  responses: InputResponses | undefined,
): InputResponses | undefined {
  if (responses === undefined) return undefined;
  let answers: InputResponses | undefined;
  for (const key of Object.keys(asked)) {
    if (!Object.hasOwn(responses, key)) continue;
    const { method, params } = asked[key];
    answers ??= {};
    // defineProperty: a key such as "__proto__" stays a key.
    Object.defineProperty(answers, key, {
      value: answerOf(method, params, responses[key], responsePath(key)),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return answers;
}
