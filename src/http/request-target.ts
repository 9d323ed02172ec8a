/** An absolute-form request target, split: its authority, and its path and query in origin form. */
export interface AbsoluteTarget {
  readonly authority: string;
  readonly target: string;
}

const SLASH = 0x2f;
const QUESTION = 0x3f;

/**
 * Splits an absolute-form request target (`http://host:port/mcp?x`, scheme in any case), which RFC 9112 §3.2.2
 * requires a server to accept; an empty path is `/`. Undefined for any other form (asterisk, authority, another
 * scheme): such a target is kept as sent, so it matches no path.
 */
export function splitAbsoluteTarget(url: string): AbsoluteTarget | undefined {
  const sep = url.indexOf('://');
  if (sep !== 4 && sep !== 5) return undefined;
  const scheme = url.slice(0, sep).toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') return undefined;
  const start = sep + 3;
  let end = start;
  while (end < url.length) {
    const c = url.charCodeAt(end);
    if (c === SLASH || c === QUESTION) break;
    end++;
  }
  const rest = url.slice(end);
  return { authority: url.slice(start, end), target: rest.charCodeAt(0) === SLASH ? rest : `/${rest}` };
}
