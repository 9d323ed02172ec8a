/**
 * What a client acts on in a Bearer challenge of `WWW-Authenticate` (RFC 6750 §3, RFC 9728 §5.1): the
 * header's parameters, camel-cased; absent ones are undefined.
 */
export interface BearerChallenge {
  error?: string;
  errorDescription?: string;
  /** The scopes the resource wants, space-separated. */
  scope?: string;
  /** Where the resource's Protected Resource Metadata is (RFC 9728). */
  resourceMetadata?: string;
}

const TOKEN = /[!#$%&'*+\-.^_`|~0-9A-Za-z]+/y;
const SPACE = /[ \t]*/y;
const SEPARATORS = /[ \t,]*/y;

/**
 * The Bearer challenge among the challenges of a `WWW-Authenticate` value (RFC 9110 §11.6.1), or undefined
 * when it has none. Other schemes, token68 values and parameters the client does not use are skipped, and
 * the first value of a repeated parameter counts.
 */
export function parseBearerChallenge(header: string | null | undefined): BearerChallenge | undefined {
  if (!header) return undefined;
  const text = header;
  let at = 0;
  const read = (re: RegExp): string | undefined => {
    re.lastIndex = at;
    const m = re.exec(text);
    if (m === null) return undefined;
    at = re.lastIndex;
    return m[0];
  };
  const readQuoted = (): string => {
    let out = '';
    for (at++; at < text.length && text[at] !== '"'; at++) {
      if (text[at] === '\\' && at + 1 < text.length) at++;
      out += text[at];
    }
    at++;
    return out;
  };
  /** The parameters of the challenge being read; a token not followed by "=" starts the next one. */
  let params: Record<string, string> | undefined;
  let bearer: Record<string, string> | undefined;
  while (at < text.length) {
    read(SEPARATORS);
    const name = read(TOKEN);
    if (name === undefined) {
      at++;
      continue;
    }
    read(SPACE);
    if (text[at] === '=' && params !== undefined) {
      at++;
      read(SPACE);
      const value = text[at] === '"' ? readQuoted() : (read(TOKEN) ?? '');
      params[name.toLowerCase()] ??= value;
    } else {
      params = {};
      if (bearer === undefined && name.toLowerCase() === 'bearer') bearer = params;
    }
  }
  if (bearer === undefined) return undefined;
  const challenge: BearerChallenge = {};
  if (bearer.error !== undefined) challenge.error = bearer.error;
  if (bearer.error_description !== undefined) challenge.errorDescription = bearer.error_description;
  if (bearer.scope !== undefined) challenge.scope = bearer.scope;
  if (bearer.resource_metadata !== undefined) challenge.resourceMetadata = bearer.resource_metadata;
  return challenge;
}
