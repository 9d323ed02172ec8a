import type { Root } from '../protocol/types.js';

/**
 * Throws a TypeError naming the first root that is not a `file://` URI, the only kind the spec
 * allows a client to expose, so a mistake surfaces where the roots are set rather than in a server.
 */
export function checkRoots(roots: readonly Root[]): void {
  if (!Array.isArray(roots)) throw new TypeError('roots must be an array of { uri, name? }');
  for (let i = 0; i < roots.length; i++) {
    const uri = roots[i]?.uri;
    if (typeof uri !== 'string' || !uri.startsWith('file://')) {
      throw new TypeError(`roots[${i}].uri must be a file:// URI; got ${JSON.stringify(uri)}`);
    }
  }
}
