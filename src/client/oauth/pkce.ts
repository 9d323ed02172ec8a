import { randomBase64url, sha256Base64url } from '../../util/base64.js';

/** A PKCE pair (RFC 7636): the verifier kept by the client, the S256 challenge sent with the authorization request. */
export interface Pkce {
  verifier: string;
  challenge: string;
}

/** A fresh pair: 32 random bytes as the verifier (43 base64url characters), its S256 challenge. */
export async function createPkce(): Promise<Pkce> {
  const verifier = randomBase64url(32);
  return { verifier, challenge: await s256Challenge(verifier) };
}

/** The S256 challenge of `verifier`: its SHA-256 in base64url (RFC 7636 §4.2). */
export function s256Challenge(verifier: string): Promise<string> {
  return sha256Base64url(verifier);
}
