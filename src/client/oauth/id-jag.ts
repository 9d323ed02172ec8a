import { type AuthorizationServerMetadata, discoverAuthorizationServer } from './metadata.js';
import type { IdentityProvider } from './oauth-client-options.js';
import { OAuthError } from './oauth-error.js';
import { postForJson } from './oauth-post.js';
import type { OAuthClientInformation } from './oauth-state.js';
import { authenticate, type ClientKey } from './token-auth.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** The token type of an identity assertion authorization grant. */
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';

/** A JWT-bearer grant's assertion for the authorization server `audience`, the resource and the scope asked. */
export type Assertion = (
  audience: string,
  resource: string | undefined,
  scope: string | undefined,
) => string | Promise<string>;

/**
 * The assertions of an enterprise client: each an ID-JAG that `provider` issues for the person's ID token, asked for
 * anew; the provider's metadata read once it is found.
 */
export function idJagAssertions(provider: IdentityProvider, fetchFn: typeof fetch): Assertion {
  let metadata: AuthorizationServerMetadata | undefined;
  return async (audience, resource, scope) => {
    metadata ??= await discoverAuthorizationServer(provider.issuer, fetchFn);
    const idToken = await provider.idToken();
    return requestIdJag(fetchFn, metadata, provider.client, { idToken, audience, resource, scope });
  };
}

/** What the grant is asked for: whose, for which authorization server, resource and scope. */
export interface IdJagRequest {
  /** The person's ID token from the identity provider. */
  idToken: string;
  /** The issuer of the authorization server the grant is presented to. */
  audience: string;
  resource: string | undefined;
  scope: string | undefined;
}

/**
 * An identity assertion authorization grant (ID-JAG) from the identity provider `idp`, for the person whose ID token
 * is given (token exchange, RFC 8693 §2.1, as draft-ietf-oauth-identity-assertion-authz-grant profiles it), with the
 * client's authentication at the provider. Rejects with an OAuthError when the provider refuses (its `error` named)
 * or answers anything but such a grant.
 */
async function requestIdJag(
  fetchFn: typeof fetch,
  idp: AuthorizationServerMetadata,
  client: OAuthClientInformation & { privateKey?: ClientKey },
  request: IdJagRequest,
): Promise<string> {
  const body = new URLSearchParams({
    grant_type: TOKEN_EXCHANGE,
    requested_token_type: ID_JAG,
    audience: request.audience,
    subject_token: request.idToken,
    subject_token_type: ID_TOKEN,
  });
  if (request.resource !== undefined) body.set('resource', request.resource);
  if (request.scope) body.set('scope', request.scope);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  await authenticate(client, idp, headers, body);
  const what = `The token exchange for a grant to ${request.audience}`;
  const answer = await postForJson(fetchFn, idp.token_endpoint, what, { headers, body });
  if (answer.issued_token_type !== ID_JAG || typeof answer.access_token !== 'string') {
    throw new OAuthError(
      `${what} at ${idp.token_endpoint} answered no identity assertion grant (issued_token_type ` +
        `${JSON.stringify(answer.issued_token_type)}, expected "${ID_JAG}" with the grant as access_token)`,
    );
  }
  return answer.access_token;
}
