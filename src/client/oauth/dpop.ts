import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import { sha256Base64url } from '../../util/base64.js';
import type { ClientKey } from './token-auth.js';

/** The algorithms a DPoP key is made for, the client's preference first (RFC 9449 §4.2: asymmetric only). */
const ALGORITHMS = ['ES256', 'EdDSA', 'ES384', 'PS256', 'RS256'];

/**
 * Proofs of possession of one key pair (DPoP, RFC 9449): a proof for each request, made for its method and URL, with
 * the hash of the access token it carries (§4.2, §7.1) and the nonce its server last gave (§8, §9).
 *
 * Promises: each proof is new (its own `jti`, `iat` now) and carries the public key only; `htu` has no query or
 * fragment.
 */
export class DPoPProver {
  /** The nonce each server (by origin) asked proofs to carry, from its last `DPoP-Nonce`. */
  private readonly nonces = new Map<string, string>();

  private constructor(
    /** The private key, to keep with the tokens bound to it: they are of no use without it. */
    readonly key: ClientKey,
    private readonly signing: Awaited<ReturnType<typeof importJWK>>,
    private readonly publicJwk: JWK,
  ) {}

  /**
   * A prover with `kept` when the authorization server still takes its algorithm, else with a new key for the first
   * of the client's algorithms it offers (`dpop_signing_alg_values_supported`); undefined when it offers none.
   */
  static async create(offered: unknown, kept: ClientKey | undefined): Promise<DPoPProver | undefined> {
    if (kept !== undefined && DPoPProver.takes(offered, kept.alg)) return DPoPProver.restore(kept);
    const alg = ALGORITHMS.find((candidate) => DPoPProver.takes(offered, candidate));
    if (alg === undefined) return undefined;
    const pair = await generateKeyPair(alg, { extractable: true });
    const key = { ...(await exportJWK(pair.privateKey)), alg };
    return new DPoPProver(key, pair.privateKey, await exportJWK(pair.publicKey));
  }

  /** A prover with a key kept with the tokens bound to it. */
  static async restore(key: ClientKey): Promise<DPoPProver> {
    const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = key;
    return new DPoPProver(key, await importJWK(key, key.alg), publicJwk);
  }

  /** Whether a server that offers `offered` (its `dpop_signing_alg_values_supported`) takes proofs made with `alg`. */
  static takes(offered: unknown, alg: string): boolean {
    return ALGORITHMS.includes(alg) && Array.isArray(offered) && offered.includes(alg);
  }

  /** A proof for a `method` request to `url`, bound to `accessToken` when one goes with it. */
  async proof(method: string, url: string | URL, accessToken?: string): Promise<string> {
    const target = new URL(url);
    const htu = `${target.origin}${target.pathname}`;
    const claims: Record<string, string> = { htm: method.toUpperCase(), htu };
    const nonce = this.nonces.get(target.origin);
    if (nonce !== undefined) claims.nonce = nonce;
    if (accessToken !== undefined) claims.ath = await sha256Base64url(accessToken);
    return new SignJWT(claims)
      .setProtectedHeader({ typ: 'dpop+jwt', alg: this.key.alg, jwk: this.publicJwk })
      .setJti(crypto.randomUUID())
      .setIssuedAt()
      .sign(this.signing);
  }

  /** Keeps the nonce a response of `url`'s server gives; true when it is a new one (a retry may then succeed). */
  noteNonce(url: string | URL, headers: Headers): boolean {
    const nonce = headers.get('dpop-nonce');
    const origin = new URL(url).origin;
    if (nonce === null || this.nonces.get(origin) === nonce) return false;
    this.nonces.set(origin, nonce);
    return true;
  }
}
