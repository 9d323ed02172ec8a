import { UsageError } from './usage-error.js';

/** `${NAME}` in a header's value: the environment variable NAME. */
const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * `--header "Name: value"` flags (of `call` and `connect`) as headers, each `${NAME}` in a value replaced by the
 * environment variable NAME: a desktop app's configuration then keeps a token in its `env`, out of the command line
 * that other users of the machine can read. UsageError for a header without a valid name, or a variable not set.
 */
export function parseHeaders(
  lines: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon === -1 ? '' : line.slice(0, colon).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new UsageError(
        `--header takes "Name: value", e.g. --header "Authorization: Bearer …"; got "${line}"`,
      );
    }
    headers[name] = line
      .slice(colon + 1)
      .trim()
      .replace(VARIABLE, (_, variable: string) => {
        const value = env[variable];
        if (value === undefined) {
          throw new UsageError(
            `--header ${name}: the environment variable ${variable} it names (\${${variable}}) is not set`,
          );
        }
        return value;
      });
  }
  return headers;
}

/** Whether `headers` carry a token given by hand (an Authorization header, any case): then no sign-in is made. */
export function givesAuthorization(headers: Record<string, string>): boolean {
  return Object.keys(headers).some((h) => h.toLowerCase() === 'authorization');
}
