import { readFile } from 'node:fs/promises';
import { OAuthClient } from '../client/oauth/oauth-client.js';
import type {
  ClientCredentialsOptions,
  EnterpriseOptions,
  WorkloadOptions,
} from '../client/oauth/oauth-client-options.js';
import type { ClientKey } from '../client/oauth/token-auth.js';
import type { CliSignIn } from './call-oauth.js';
import { givesAuthorization } from './header-args.js';
import { UsageError } from './usage-error.js';

/** `--client-id` (of `call` and `connect`): how a machine client gets its tokens, no one signing in. */
export type MachineClient = ClientCredentialsOptions | WorkloadOptions | EnterpriseOptions;

/** The options that make a run a machine client's, the same for `call` and `connect`. */
export const MACHINE_OPTIONS = {
  'client-id': { type: 'string' },
  'idp-issuer': { type: 'string' },
  'idp-client-id': { type: 'string' },
} as const;

type MachineValues = { [name in keyof typeof MACHINE_OPTIONS]?: string };

/** Where a machine client's credentials are: the environment, never the command line other users can read. */
const SECRET = 'MCPWIRE_CLIENT_SECRET';
const KEY = 'MCPWIRE_CLIENT_KEY';
const TOKEN_FILE = 'MCPWIRE_CLIENT_TOKEN_FILE';
const ID_TOKEN_FILE = 'MCPWIRE_ID_TOKEN_FILE';
const IDP_SECRET = 'MCPWIRE_IDP_CLIENT_SECRET';

/**
 * `--client-id ID`: a machine client, its credentials from the environment: its secret in MCPWIRE_CLIENT_SECRET, or
 * its private key, a JWK with its `alg`, in MCPWIRE_CLIENT_KEY (private_key_jwt), for the client credentials grant;
 * or, for a workload, the path of the identity token its platform writes in MCPWIRE_CLIENT_TOKEN_FILE, read again
 * for each token (the JWT-bearer grant). With `--idp-issuer` and `--idp-client-id`, a person's: the ID token their
 * identity provider issued to the client there in the file MCPWIRE_ID_TOKEN_FILE names, read again for each grant
 * (enterprise-managed authorization), the client's secret there in MCPWIRE_IDP_CLIENT_SECRET.
 */
export function machineClient(
  values: MachineValues,
  target: { kind: string },
  headers: Record<string, string>,
): MachineClient | undefined {
  const clientId = values['client-id'];
  if (clientId === undefined) {
    if (values['idp-issuer'] !== undefined || values['idp-client-id'] !== undefined)
      throw new UsageError('--idp-issuer and --idp-client-id go with --client-id, the client at the server');
    return undefined;
  }
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
  if (values['idp-issuer'] !== undefined || values['idp-client-id'] !== undefined)
    return enterprise(clientId, values);
  const file = process.env[TOKEN_FILE];
  if (file)
    return { grant: 'jwt_bearer', client: { client_id: clientId }, assertion: fileReader(file, TOKEN_FILE) };
  const client = clientCredentials(clientId);
  if (client !== undefined) return { grant: 'client_credentials', client };
  throw new UsageError(
    `--client-id gets tokens with the client credentials grant: set ${SECRET} to its secret, or ${KEY} to its ` +
      `private key as a JWK with its "alg"; or, for a workload, ${TOKEN_FILE} to the file of its identity token ` +
      '(kept out of the command line, where other users can read them)',
  );
}

/** The client's secret or private key from the environment; undefined when neither is set. */
function clientCredentials(clientId: string): ClientCredentialsOptions['client'] | undefined {
  const secret = process.env[SECRET];
  const key = process.env[KEY];
  if (key) return { client_id: clientId, privateKey: parseKey(key) };
  if (secret) return { client_id: clientId, client_secret: secret };
  return undefined;
}

/** Enterprise-managed authorization: the person's ID token, traded at their identity provider for a grant. */
function enterprise(clientId: string, values: MachineValues): EnterpriseOptions {
  const issuer = values['idp-issuer'];
  const idpClient = values['idp-client-id'];
  if (issuer === undefined || idpClient === undefined)
    throw new UsageError(
      '--idp-issuer and --idp-client-id go together: the identity provider, the client there',
    );
  if (!URL.canParse(issuer))
    throw new UsageError(`--idp-issuer must be the identity provider's URL, not "${issuer}"`);
  if (process.env[TOKEN_FILE])
    throw new UsageError(
      `--idp-issuer gets a grant for a person: ${TOKEN_FILE} is a workload's, leave it unset`,
    );
  const file = process.env[ID_TOKEN_FILE];
  if (!file) {
    throw new UsageError(
      `--idp-issuer needs the person's ID token from their sign-in there: set ${ID_TOKEN_FILE} to the file it is in`,
    );
  }
  const secret = process.env[IDP_SECRET];
  return {
    grant: 'enterprise',
    client: clientCredentials(clientId) ?? { client_id: clientId },
    identityProvider: {
      issuer,
      client: secret ? { client_id: idpClient, client_secret: secret } : { client_id: idpClient },
      idToken: fileReader(file, ID_TOKEN_FILE),
    },
  };
}

/** Reads the token in `file` (named by the variable `name`) each time it is called. */
function fileReader(file: string, name: string): () => Promise<string> {
  return () =>
    readFile(file, 'utf8').then(
      (text) => text.trim(),
      (err: Error) => Promise.reject(new Error(`${name}: the token could not be read: ${err.message}`)),
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
