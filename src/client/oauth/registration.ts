import type { AuthorizationServerMetadata } from './metadata.js';
import { OAuthError } from './oauth-error.js';
import { postForJson } from './oauth-post.js';
import type { OAuthClientInformation } from './oauth-state.js';
import { secretMethod } from './token-auth.js';

/** The OpenID Connect application type a client registers as (OIDC Registration §2). */
export type ApplicationType = 'native' | 'web';

export interface RegistrationRequest {
  redirectUri: string;
  clientName: string;
  /** Default: from the redirect URI (see {@link applicationTypeOf}). */
  applicationType?: ApplicationType;
}

/**
 * Registers the client with `issuer` (RFC 7591, as MCP's Dynamic Client Registration has it): for the
 * authorization code and refresh token grants, with an `application_type` (SEP-837: without it an OpenID
 * Connect server assumes "web" and may refuse a loopback redirect URI), as a public client where the server
 * takes one, else as one with a secret sent as the server prefers. Resolves with the credentials, bound to
 * `issuer`; rejects with an OAuthError saying what the server answered, and, when it refused the redirect
 * URI or the metadata, what to change.
 */
export async function registerClient(
  issuer: AuthorizationServerMetadata,
  request: RegistrationRequest,
  fetchFn: typeof fetch,
): Promise<OAuthClientInformation & { issuer: string }> {
  const endpoint = issuer.registration_endpoint!;
  const applicationType = request.applicationType ?? applicationTypeOf(request.redirectUri);
  const method = issuer.token_endpoint_auth_methods_supported?.includes('none')
    ? 'none'
    : secretMethod(issuer);
  let answer: Record<string, unknown>;
  try {
    answer = await postForJson(fetchFn, endpoint, 'Client registration', {
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        client_name: request.clientName,
        redirect_uris: [request.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: method,
        application_type: applicationType,
      }),
    });
  } catch (err) {
    const code = (err as OAuthError).error;
    if (code !== 'invalid_redirect_uri' && code !== 'invalid_client_metadata') throw err;
    throw new OAuthError(
      `${(err as Error).message}. The client asked to be registered as application_type "${applicationType}" ` +
        `with the redirect URI ${request.redirectUri}: give the OAuthClient the applicationType or redirectUri ` +
        'that server accepts, or pre-registered `client` credentials',
      code,
      { cause: err },
    );
  }
  if (typeof answer.client_id !== 'string') {
    throw new OAuthError(`Client registration at ${endpoint} answered no client_id`);
  }
  const client: OAuthClientInformation & { issuer: string } = {
    issuer: issuer.issuer,
    client_id: answer.client_id,
    token_endpoint_auth_method:
      typeof answer.token_endpoint_auth_method === 'string' ? answer.token_endpoint_auth_method : undefined,
  };
  if (typeof answer.client_secret === 'string') client.client_secret = answer.client_secret;
  return client;
}

/**
 * The application type of a client that is sent back to `redirectUri` (the MCP authorization spec's rule):
 * "native" for a loopback redirect (a desktop app, a CLI, a locally served page) or an app's own URI scheme,
 * "web" for a page served from another host.
 */
export function applicationTypeOf(redirectUri: string): ApplicationType {
  const url = new URL(redirectUri);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'native';
  const host = url.hostname;
  const loopback =
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '[::1]' ||
    /^127\.\d+\.\d+\.\d+$/.test(host);
  return loopback ? 'native' : 'web';
}
