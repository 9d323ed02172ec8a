import type { Clock } from '../../util/clock.js';
import type { DPoPProver } from './dpop.js';
import type { AuthorizationServerMetadata } from './metadata.js';
import { OAuthError } from './oauth-error.js';
import { postForJson } from './oauth-post.js';
import type { OAuthClientInformation, OAuthTokens } from './oauth-state.js';
import { authenticate, type ClientKey } from './token-auth.js';

/**
 * A token request (RFC 6749 §4.1.3, §4.4, §6) for `resource` with the client's authentication, and the tokens it
 * answers: Bearer, or DPoP-bound when `prover` gives the request a proof (RFC 9449 §5; sent once more with the nonce
 * the server asks for, §8), with their expiry read against `clock`; a refresh answer without a refresh token leaves
 * `previous`'s in force (§6). Failures reject with OAuthError.
 */
export async function requestTokens(
  fetchFn: typeof fetch,
  issuer: AuthorizationServerMetadata,
  client: OAuthClientInformation & { privateKey?: ClientKey },
  resource: string | undefined,
  params: Record<string, string>,
  previous: OAuthTokens | undefined,
  clock: Pick<Clock, 'now'>,
  prover?: DPoPProver,
): Promise<OAuthTokens> {
  const url = issuer.token_endpoint;
  let nonceGiven = false;
  const seen =
    prover &&
    ((headers: Headers) => {
      nonceGiven = prover.noteNonce(url, headers);
    });
  const send = async () => {
    const body = new URLSearchParams(params);
    if (resource !== undefined) body.set('resource', resource);
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    await authenticate(client, issuer, headers, body);
    if (prover !== undefined) headers.dpop = await prover.proof('POST', url);
    return postForJson(fetchFn, url, 'The token request', { headers, body }, seen);
  };
  const answer = await send().catch((err: unknown) => {
    if (err instanceof OAuthError && err.error === 'use_dpop_nonce' && nonceGiven) return send();
    throw err;
  });
  if (typeof answer.access_token !== 'string' || typeof answer.token_type !== 'string') {
    throw new OAuthError(`The token endpoint ${url} answered no access_token and token_type`);
  }
  const type = answer.token_type.toLowerCase();
  if (type !== 'bearer' && (type !== 'dpop' || prover === undefined)) {
    throw new OAuthError(
      `The token endpoint issued a ${answer.token_type} token, which this client does not present: it presents ` +
        'Bearer tokens, and DPoP-bound ones where it proved a key',
    );
  }
  const tokens: OAuthTokens = {
    access_token: answer.access_token,
    token_type: answer.token_type,
    issuer: issuer.issuer,
  };
  const refreshToken =
    typeof answer.refresh_token === 'string' ? answer.refresh_token : previous?.refresh_token;
  if (refreshToken !== undefined) tokens.refresh_token = refreshToken;
  if (typeof answer.scope === 'string') tokens.scope = answer.scope;
  if (typeof answer.expires_in === 'number') tokens.expires_at = clock.now() + answer.expires_in * 1000;
  return tokens;
}
