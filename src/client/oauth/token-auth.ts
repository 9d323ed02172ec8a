import { importJWK, type JWK, SignJWT } from 'jose';
import { basicCredentials } from '../../http/basic-credentials.js';
import type { AuthorizationServerMetadata } from './metadata.js';
import type { OAuthClientInformation } from './oauth-state.js';

/**
 * A private key a client signs its token requests with (private_key_jwt): a JWK whose `alg` says how (e.g.
 * "ES256", "RS256"), with its `kid` when the authorization server knows several of the client's keys.
 */
export type ClientKey = JWK & { alg: string };

/** The assertion type of a client that authenticates with a JWT it signed (RFC 7523 §2.2). */
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** How long a client assertion is good for: one request's worth. */
const ASSERTION_SECONDS = 60;

/**
 * Puts the client's authentication into a token request (RFC 6749 §2.3): a JWT signed with its `privateKey`
 * (private_key_jwt, RFC 7523 §2.2: issued by and about the client, for the authorization server's issuer, used
 * once); its secret as HTTP Basic or in the body, as it registered or as the server prefers; or, for a public
 * client, its `client_id` alone.
 */
export async function authenticate(
  client: OAuthClientInformation & { privateKey?: ClientKey },
  issuer: AuthorizationServerMetadata,
  headers: Record<string, string>,
  body: URLSearchParams,
): Promise<void> {
  const key = client.privateKey;
  if (key !== undefined) {
    body.set('client_id', client.client_id);
    body.set('client_assertion_type', JWT_BEARER);
    body.set('client_assertion', await assertion(client.client_id, key, issuer.issuer));
    return;
  }
  const method =
    client.token_endpoint_auth_method ?? (client.client_secret === undefined ? 'none' : secretMethod(issuer));
  if (method === 'client_secret_basic' && client.client_secret !== undefined) {
    headers.authorization = basicCredentials(client.client_id, client.client_secret);
    return;
  }
  body.set('client_id', client.client_id);
  if (method === 'client_secret_post' && client.client_secret !== undefined) {
    body.set('client_secret', client.client_secret);
  }
}

/** How a client with a secret authenticates at `issuer`'s token endpoint: Basic where offered, else in the body. */
export function secretMethod(issuer: AuthorizationServerMetadata): string {
  const offered = issuer.token_endpoint_auth_methods_supported;
  // RFC 8414 §2: without the field, client_secret_basic is the default.
  if (offered === undefined || offered.includes('client_secret_basic')) return 'client_secret_basic';
  return offered.includes('client_secret_post') ? 'client_secret_post' : 'client_secret_basic';
}

/** A client assertion for `audience`, signed with `key`. */
async function assertion(clientId: string, key: ClientKey, audience: string): Promise<string> {
  const header = key.kid === undefined ? { alg: key.alg } : { alg: key.alg, kid: key.kid };
  return new SignJWT({})
    .setProtectedHeader(header)
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(audience)
    .setJti(crypto.randomUUID())
    .setIssuedAt()
    .setExpirationTime(`${ASSERTION_SECONDS}s`)
    .sign(await importJWK(key, key.alg));
}
