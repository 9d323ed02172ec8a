import { createRemoteJWKSet, customFetch, errors, type JWTPayload, jwtVerify } from 'jose';
import { isSecureEndpoint } from './guards.js';
import { type TokenGrant, type TokenVerifier, withBinding } from './protected-resource.js';

export interface JwtVerifierOptions {
  /** The issuer tokens must name (`iss`): the authorization server's, exactly as its metadata says it. */
  issuer: string;
  /** Where its signing keys are published (its metadata's `jwks_uri`): https, or http on loopback only. */
  jwksUrl: string;
  /** This server's canonical URL: a token whose `aud` does not name it was issued for another server. */
  resource: string;
  /** The signature algorithms taken. Default: RS256, PS256, ES256, ES384, EdDSA (never `none`, never HMAC). */
  algorithms?: readonly string[];
  /** How far `exp` and `nbf` may be off, for clocks that differ, in seconds. Default 30. */
  clockToleranceSeconds?: number;
  /**
   * After fetching the keys, how long a token naming a key not known yet is refused without fetching them again
   * (so that tokens with made-up key ids cannot make every request a fetch). Default 30 s.
   */
  keysCooldownMs?: number;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
}

const ALGORITHMS = ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA'];

/** What a token that is not good for this server fails with: it is refused (401), not an outage (503). */
const REFUSALS: ReadonlyArray<new (...args: never[]) => Error> = [
  errors.JWTClaimValidationFailed,
  errors.JWTExpired,
  errors.JWTInvalid,
  errors.JWSInvalid,
  errors.JWSSignatureVerificationFailed,
  errors.JWKSNoMatchingKey,
  errors.JWKSMultipleMatchingKeys,
  errors.JOSEAlgNotAllowed,
  errors.JOSENotSupported,
];

/**
 * A TokenVerifier for JWT access tokens (RFC 9068), checked here against the authorization server's keys
 * instead of asking it about each token: the signature (with one of `algorithms`, by a key of `jwksUrl`), `iss`,
 * `aud` naming `resource`, `exp` and `nbf`. The keys are fetched once, and again when a token names one not
 * known yet (a rotation), at most once per `keysCooldownMs`. The grant's principal is `sub` (else
 * `client_id`); its scopes, `scope` (space-separated) or `scp` (a list). A token that fails any check is
 * refused; keys that cannot be fetched reject, so that the request gets 503 rather than 401.
 */
export function jwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  const jwksUrl = new URL(options.jwksUrl);
  if (!isSecureEndpoint(jwksUrl)) {
    throw new Error(
      `jwtVerifier: the jwksUrl ${jwksUrl} is not https: keys fetched over plain http could be anyone's, and every ` +
        'token they sign would be taken (plain http only on loopback)',
    );
  }
  const keys = createRemoteJWKSet(jwksUrl, {
    cooldownDuration: options.keysCooldownMs ?? 30_000,
    ...(options.fetch && { [customFetch]: options.fetch }),
  });
  const audience = options.resource.replace(/\/$/, '');
  const checks = {
    issuer: options.issuer,
    // A trailing slash is no other server.
    audience: [audience, `${audience}/`],
    algorithms: [...(options.algorithms ?? ALGORITHMS)],
    clockTolerance: options.clockToleranceSeconds ?? 30,
    requiredClaims: ['exp'],
  };
  return {
    async verify(token) {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keys, checks));
      } catch (err) {
        if (REFUSALS.some((refusal) => err instanceof refusal)) return undefined;
        throw err;
      }
      return grantOf(payload);
    },
  };
}

function grantOf(payload: JWTPayload): TokenGrant | undefined {
  const principal = [payload.sub, payload.client_id].find((v) => typeof v === 'string' && v !== '');
  if (principal === undefined) return undefined;
  const { scope, scp } = payload;
  const scopes =
    typeof scope === 'string'
      ? scope.split(' ').filter(Boolean)
      : Array.isArray(scp)
        ? scp.filter((s): s is string => typeof s === 'string')
        : [];
  return withBinding({ principal: principal as string, scopes }, payload.cnf);
}
