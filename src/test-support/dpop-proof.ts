import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, type JWK, jwtVerify } from 'jose';

/** What a DPoP proof must be for, besides being well made (RFC 9449 §4.3). */
export interface ProofExpectation {
  method: string;
  url: string;
  /** The nonce the server gave, which the proof must carry. */
  nonce?: string;
  /** The access token the proof goes with (its hash is `ath`). */
  accessToken?: string;
}

/**
 * Checks a DPoP proof as a server would (RFC 9449 §4.3): typed `dpop+jwt`, signed by the public key in its header
 * (no private part), for the method and URL (no query or fragment), issued within five minutes, with the nonce and
 * the access token's hash asked. Its key's thumbprint and its `jti`; 'nonce' when it lacks the nonce (the server
 * then asks for it, §8–9); a string saying what is wrong otherwise.
 */
export async function checkProof(
  proof: string | string[] | undefined,
  expected: ProofExpectation,
): Promise<{ jkt: string; jti: string } | 'nonce' | string> {
  if (typeof proof !== 'string') return 'not one DPoP header';
  try {
    const header = decodeProtectedHeader(proof);
    const jwk = header.jwk as JWK | undefined;
    if (header.typ !== 'dpop+jwt' || jwk === undefined || header.alg === undefined) return 'not a DPoP proof';
    if (jwk.d !== undefined) return 'a private key in the proof';
    const { payload } = await jwtVerify(proof, await importJWK(jwk, header.alg), { maxTokenAge: '5m' });
    if (payload.htm !== expected.method || payload.htu !== expected.url) return 'for another request';
    if (typeof payload.jti !== 'string') return 'no jti';
    if (expected.accessToken !== undefined) {
      const ath = createHash('sha256').update(expected.accessToken).digest('base64url');
      if (payload.ath !== ath) return 'for another access token';
    }
    if (expected.nonce !== undefined && payload.nonce !== expected.nonce) return 'nonce';
    return { jkt: await calculateJwkThumbprint(jwk), jti: payload.jti };
  } catch (err) {
    return (err as Error).message;
  }
}
