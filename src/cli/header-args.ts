import { UsageError } from './usage-error.js';

/** `--header "Name: value"` flags (of `call` and `connect`) as headers; UsageError for one without a valid name. */
export function parseHeaders(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon === -1 ? '' : line.slice(0, colon).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new UsageError(
        `--header takes "Name: value", e.g. --header "Authorization: Bearer …"; got "${line}"`,
      );
    }
    headers[name] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** Whether `headers` carry a token given by hand (an Authorization header, any case): then no sign-in is made. */
export function givesAuthorization(headers: Record<string, string>): boolean {
  return Object.keys(headers).some((h) => h.toLowerCase() === 'authorization');
}
