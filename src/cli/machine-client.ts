import { OAuthClient } from '../client/oauth/oauth-client.js';
import type { ClientCredentialsOptions } from '../client/oauth/oauth-client-options.js';
import type { ClientKey } from '../client/oauth/token-auth.js';
import type { CliSignIn } from './call-oauth.js';
import { givesAuthorization } from './header-args.js';
import { UsageError } from './usage-error.js';

/** `--client-id` (of `call` and `connect`): a machine client's credentials for the client credentials grant. */
export type MachineClient = ClientCredentialsOptions['client'];

/**
 * `--client-id ID`: a machine client's credentials, from the environment (never the command line, where other
 * users can read them): its secret in MCPWIRE_CLIENT_SECRET, or its private key, a JWK with its `alg`, in
 * MCPWIRE_CLIENT_KEY (private_key_jwt).
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
  const secret = process.env.MCPWIRE_CLIENT_SECRET;
  const key = process.env.MCPWIRE_CLIENT_KEY;
  if (secret && key) {
    throw new UsageError('--client-id: set MCPWIRE_CLIENT_SECRET or MCPWIRE_CLIENT_KEY, not both');
  }
  if (key) return { client_id: clientId, privateKey: parseKey(key) };
  if (secret) return { client_id: clientId, client_secret: secret };
  throw new UsageError(
    '--client-id gets tokens with the client credentials grant: set MCPWIRE_CLIENT_SECRET to its secret, or ' +
      'MCPWIRE_CLIENT_KEY to its private key as a JWK with its "alg" (kept out of the command line, where other ' +
      'users can read them)',
  );
}

/** The authorization of a run as `machine`: tokens of the client credentials grant; no one signs in, nothing to close. */
export function machineSignIn(machine: MachineClient): CliSignIn {
  return { oauth: new OAuthClient({ grant: 'client_credentials', client: machine }), close: async () => {} };
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
