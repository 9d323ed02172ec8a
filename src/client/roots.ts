import { checkClientAnswer } from '../protocol/client-answers.js';
import { Method, type Root } from '../protocol/types.js';

/**
 * Throws a TypeError naming the first root that is not a `file://` URI (with an optional string name), the only
 * kind the spec allows a client to expose, so a mistake surfaces where the roots are set rather than in a
 * server: what a server checks a `roots/list` answer with.
 */
export function checkRoots(roots: readonly Root[]): void {
  if (!Array.isArray(roots)) throw new TypeError('roots must be an array of { uri, name? }');
  const checked = checkClientAnswer(Method.RootsList, undefined, { roots });
  if (!checked.ok) throw new TypeError(`${checked.at.slice(1)} ${checked.problem}`);
}
