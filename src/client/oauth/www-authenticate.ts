/**
 * What a client acts on in the Bearer and DPoP challenges of `WWW-Authenticate` (RFC 6750 §3, RFC 9449 §7.1, RFC
 * 9728 §5.1): the headers' parameters, camel-cased; absent ones are undefined.
 */
export interface AuthChallenge {
  /** The resource takes DPoP-bound tokens: it sent a DPoP challenge, alone or beside a Bearer one. */
  dpop?: true;
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
 * The Bearer and DPoP challenges among the challenges of a `WWW-Authenticate` value (RFC 9110 §11.6.1), each
 * parameter the DPoP challenge's where it has it, else the Bearer one's; undefined when it has neither. Other
 * schemes, token68 values and parameters the client does not use are skipped, and the first value of a repeated
 * parameter counts.
 */
export function parseChallenge(header: string | null | undefined): AuthChallenge | undefined {
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
  let dpop: Record<string, string> | undefined;
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
      const scheme = name.toLowerCase();
      if (bearer === undefined && scheme === 'bearer') bearer = params;
      else if (dpop === undefined && scheme === 'dpop') dpop = params;
    }
  }
  if (bearer === undefined && dpop === undefined) return undefined;
  const challenge: AuthChallenge = dpop === undefined ? {} : { dpop: true };
  const param = (field: string) => dpop?.[field] ?? bearer?.[field];
  const error = param('error');
  const description = param('error_description');
  const scope = param('scope');
  const metadata = param('resource_metadata');
  if (error !== undefined) challenge.error = error;
  if (description !== undefined) challenge.errorDescription = description;
  if (scope !== undefined) challenge.scope = scope;
  if (metadata !== undefined) challenge.resourceMetadata = metadata;
  return challenge;
}
