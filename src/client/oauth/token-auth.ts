import { basicCredentials } from '../../http/basic-credentials.js';
import type { AuthorizationServerMetadata } from './metadata.js';
import type { OAuthClientInformation } from './oauth-state.js';

/**
 * Puts the client's authentication into a token request (RFC 6749 §2.3): its secret as HTTP Basic or in the
 * body, as it registered or as the server prefers; or, for a public client, its `client_id` alone.
 */
export function authenticate(
  client: OAuthClientInformation,
  issuer: AuthorizationServerMetadata,
  headers: Record<string, string>,
  body: URLSearchParams,
): void {
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
