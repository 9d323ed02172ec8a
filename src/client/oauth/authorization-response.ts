import type { AuthorizationServerMetadata } from './metadata.js';
import { OAuthError } from './oauth-error.js';

/**
 * The authorization code of the response the user agent was sent back with (`back`, the redirect URI with
 * its query), once the response is shown to answer this request of this server; else an OAuthError.
 *
 * In order: the `state` must be the request's. Then the issuer (RFC 9207 §2.4, as MCP 2026-07-28 has it, and
 * applied whatever the protocol era, since it is what stops a mix-up attack): an `iss` present must equal the
 * issuer recorded from the server's validated metadata as a plain string, without any URL normalisation (a
 * trailing slash or another case is another issuer); one absent is refused when the metadata advertises
 * `authorization_response_iss_parameter_supported`. Only then is an `error` believed, and told; a response
 * that failed those checks has its error left unsaid, as it may come from anyone.
 */
export function authorizationCode(
  back: URL,
  expected: { state: string; issuer: AuthorizationServerMetadata },
): string {
  const query = back.searchParams;
  if (query.get('state') !== expected.state) {
    throw new OAuthError('The authorization response does not carry the state of the request: not using it');
  }
  const { issuer } = expected.issuer;
  const iss = query.getAll('iss');
  if (iss.length > 1 || (iss.length === 1 && iss[0] !== issuer)) {
    throw new OAuthError(
      `The authorization response names the issuer ${iss.map((i) => JSON.stringify(i)).join(', ')}, not ` +
        `${JSON.stringify(issuer)}, the authorization server it was sent to (RFC 9207): not using it. Either ` +
        'another server answered (a mix-up attack), or that server names itself differently in its metadata ' +
        'and its responses, which its operator must fix',
    );
  }
  if (iss.length === 0 && expected.issuer.authorization_response_iss_parameter_supported === true) {
    throw new OAuthError(
      `The authorization response carries no iss, which the authorization server ${issuer} says it sends ` +
        '(authorization_response_iss_parameter_supported, RFC 9207): not using it',
    );
  }
  const error = query.get('error');
  if (error !== null) {
    const why = query.get('error_description');
    throw new OAuthError(`Authorization was refused: ${error}${why ? `: ${why}` : ''}`, error);
  }
  const code = query.get('code');
  if (code === null) throw new OAuthError('The authorization response carries no code');
  return code;
}
