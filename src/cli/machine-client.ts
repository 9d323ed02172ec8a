import { readFile } from 'node:fs/promises';
import { OAuthClient } from '../client/oauth/oauth-client.js';
import type { ClientCredentialsOptions, WorkloadOptions } from '../client/oauth/oauth-client-options.js';
import type { ClientKey } from '../client/oauth/token-auth.js';
import type { CliSignIn } from './call-oauth.js';
import { givesAuthorization } from './header-args.js';
import { UsageError } from './usage-error.js';

/** `--client-id` (of `call` and `connect`): how a machine client gets its tokens, no one signing in. */
export type MachineClient = ClientCredentialsOptions | WorkloadOptions;

/** Where a machine client's credentials are: the environment, never the command line other users can read. */
const SECRET = 'MCPWIRE_CLIENT_SECRET';
const KEY = 'MCPWIRE_CLIENT_KEY';
const TOKEN_FILE = 'MCPWIRE_CLIENT_TOKEN_FILE';

/**
 * `--client-id ID`: a machine client, its credentials from the environment: its secret in MCPWIRE_CLIENT_SECRET, or
 * its private key, a JWK with its `alg`, in MCPWIRE_CLIENT_KEY (private_key_jwt), for the client credentials grant;
 * or, for a workload, the path of the identity token its platform writes in MCPWIRE_CLIENT_TOKEN_FILE, read again
 * for each token (the JWT-bearer grant).
 */
export function machineClient(
  clientId: string | undefined,
  target: { kind: string },
  headers: Record<string, string>,
): MachineClient | undefined {
  if (clientId === undefined) return undefined;
  if (target.kind !== 'url')
    throw new UsageError('--client-id gets OAuth tokens for a server at a URL, not over stdio');
  if (givesAuthorization(headers)) {
    throw new UsageError(
      '--client-id gets a token, and --header "Authorization: …" gives one: give one of them',
    );
  }
  const given = [SECRET, KEY, TOKEN_FILE].filter((name) => process.env[name]);
  if (given.length > 1)
    throw new UsageError(`--client-id: set one of ${given.join(', ')}, not ${given.length}`);
  const secret = process.env[SECRET];
  const key = process.env[KEY];
  const file = process.env[TOKEN_FILE];
  if (key) return { grant: 'client_credentials', client: { client_id: clientId, privateKey: parseKey(key) } };
  if (secret) return { grant: 'client_credentials', client: { client_id: clientId, client_secret: secret } };
  if (file) {
    const assertion = () =>
      readFile(file, 'utf8').then(
        (text) => text.trim(),
        (err: Error) =>
          Promise.reject(new Error(`${TOKEN_FILE}: the identity token could not be read: ${err.message}`)),
      );
    return { grant: 'jwt_bearer', client: { client_id: clientId }, assertion };
  }
  throw new UsageError(
    `--client-id gets tokens with the client credentials grant: set ${SECRET} to its secret, or ${KEY} to its ` +
      `private key as a JWK with its "alg"; or, for a workload, ${TOKEN_FILE} to the file of its identity token ` +
      '(kept out of the command line, where other users can read them)',
  );
}

/** The authorization of a run as `machine`: no one signs in, nothing to close. */
export function machineSignIn(machine: MachineClient): CliSignIn {
  return { oauth: new OAuthClient(machine), close: async () => {} };
}

function parseKey(text: string): ClientKey {
  let key: unknown;
  try {
    key = JSON.parse(text);
  } catch {
    throw new UsageError('MCPWIRE_CLIENT_KEY must be a private key as a JWK (JSON), not something else');
  }
  const jwk = key as Partial<ClientKey> | null;
  if (typeof jwk !== 'object' || jwk === null || typeof jwk.kty !== 'string' || typeof jwk.alg !== 'string') {
    throw new UsageError('MCPWIRE_CLIENT_KEY must be a JWK with "kty" and "alg" (e.g. "ES256")');
  }
  return jwk as ClientKey;
}
