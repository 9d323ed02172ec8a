import { createHash, randomBytes } from 'node:crypto';

/** A PKCE pair (RFC 7636): the verifier kept by the client, the S256 challenge sent with the authorization request. */
export interface Pkce {
  verifier: string;
  challenge: string;
}

/** A fresh pair: 32 random bytes as the verifier (43 base64url characters), its SHA-256 as the challenge. */
export function createPkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}
