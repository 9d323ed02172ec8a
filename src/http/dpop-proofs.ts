import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, type JWK, jwtVerify } from 'jose';
import { sha256Base64url } from '../util/base64.js';
import { type Clock, systemClock } from '../util/clock.js';

/** The algorithms a proof may be signed with: asymmetric only (RFC 9449 §4.3), never `none` or HMAC. */
export const DPOP_ALGORITHMS: readonly string[] = ['ES256', 'ES384', 'EdDSA', 'PS256', 'RS256'];

/** How far a proof's `iat` may be from now, in seconds: proofs are short-lived (RFC 9449 §11.1). */
const WINDOW_SECONDS = 300;
/** The proofs remembered at most, against replay; past it the oldest are forgotten first. */
const MAX_REMEMBERED = 100_000;

/** The request a proof must be for. */
export interface ProofRequest {
  method: string;
  /** Its URL; the proof's `htu` is compared without query or fragment. */
  url: string;
  /** The access token that goes with it (its hash is `ath`), if any. */
  accessToken?: string;
  /** The nonce the server gave, if it asks for one. */
  nonce?: string;
}

/** A proof that holds: the thumbprint of its key (RFC 7638), which a token must be bound to, and its `jti`. */
export interface ProvenKey {
  jkt: string;
  jti: string;
}

/** A proof that does not hold, and why (for a person); `nonce` when only the nonce was missing or old. */
export interface ProofProblem {
  problem: string;
  nonce?: true;
}

/**
 * Checks DPoP proofs (RFC 9449 §4.3): exactly one, a JWT typed `dpop+jwt`, signed with one of `DPOP_ALGORITHMS` by
 * the public key its header carries (no private part), for the request's method and URL, issued within five minutes
 * of now, with the access token's hash and the nonce asked for; and not seen before by this checker within that
 * window (a replayed proof is refused; across processes, the window alone bounds a replay).
 */
export class DPoPProofs {
  /** Each proof's `jti` seen, with when it may be forgotten (ms), oldest first. */
  private readonly seen = new Map<string, number>();

  constructor(private readonly clock: Pick<Clock, 'now'> = systemClock) {}

  async check(proof: string | undefined, request: ProofRequest): Promise<ProvenKey | ProofProblem> {
    if (proof === undefined || proof === '') return { problem: 'no DPoP proof (the DPoP header)' };
    // A JWT has no comma: there were several DPoP headers.
    if (proof.includes(',')) return { problem: 'more than one DPoP proof' };
    let jwk: JWK;
    let alg: string;
    try {
      const header = decodeProtectedHeader(proof);
      if (header.typ !== 'dpop+jwt') return { problem: 'the proof is not typed dpop+jwt' };
      if (header.alg === undefined || !DPOP_ALGORITHMS.includes(header.alg))
        return { problem: `the proof's algorithm is not one of ${DPOP_ALGORITHMS.join(', ')}` };
      if (typeof header.jwk !== 'object' || header.jwk === null)
        return { problem: 'the proof carries no key (jwk)' };
      jwk = header.jwk as JWK;
      alg = header.alg;
    } catch {
      return { problem: 'the proof is not a JWT' };
    }
    if (jwk.d !== undefined) return { problem: "the proof's key has its private part" };
    const now = this.clock.now();
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(proof, await importJWK(jwk, alg), {
        algorithms: [alg],
        currentDate: new Date(now),
      }));
    } catch {
      return { problem: 'the proof is not signed by the key it carries' };
    }
    const { jti, htm, htu, iat, ath, nonce } = payload;
    if (typeof jti !== 'string' || jti === '') return { problem: 'the proof has no jti' };
    if (htm !== request.method) return { problem: `the proof is for ${String(htm)}, not ${request.method}` };
    if (typeof htu !== 'string' || !URL.canParse(htu) || target(htu) !== target(request.url))
      return { problem: `the proof is for ${String(htu)}, not ${target(request.url)}` };
    if (typeof iat !== 'number' || Math.abs(now / 1000 - iat) > WINDOW_SECONDS)
      return { problem: 'the proof was not made within five minutes of now (iat)' };
    if (request.accessToken !== undefined && ath !== (await sha256Base64url(request.accessToken)))
      return { problem: 'the proof is for another access token (ath)' };
    if (request.nonce !== undefined && nonce !== request.nonce)
      return { problem: 'the proof lacks the nonce this server gave (DPoP-Nonce)', nonce: true };
    if (!this.remember(jti, now))
      return { problem: 'the proof was used before: make a new one for each request' };
    return { jkt: await calculateJwkThumbprint(jwk), jti };
  }

  /** Remembers `jti` until the window has passed; false when it is remembered already. */
  private remember(jti: string, now: number): boolean {
    for (const [old, until] of this.seen) {
      if (until > now && this.seen.size < MAX_REMEMBERED) break;
      this.seen.delete(old);
    }
    if (this.seen.has(jti)) return false;
    this.seen.set(jti, now + 2 * WINDOW_SECONDS * 1000);
    return true;
  }
}

/** A URL as `htu` names it: scheme, host and path, no query or fragment (RFC 9449 §4.3). */
function target(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}
