// Base64 without Buffer, so that the code of the client runs in a browser too: btoa and atob exist in every
// runtime mcpwire supports (Node 20+, browsers, Deno, Bun, Workers), and work on "binary strings" (one
// character per byte), which these helpers build and read.

const CHUNK = 0x8000;
const utf8 = new TextEncoder();

/** Standard padded base64 (RFC 4648 §4) of `bytes`. */
export function base64(bytes: Uint8Array): string {
  let binary = '';
  // In chunks: one apply with a huge array would overflow the argument limit.
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + CHUNK) as unknown as number[]);
  }
  return btoa(binary);
}

/** base64url without padding (RFC 4648 §5), as PKCE, OAuth state and session ids use. */
export function base64url(bytes: Uint8Array): string {
  return base64(bytes).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
}

/** Standard padded base64 of the UTF-8 of `text`. */
export function utf8Base64(text: string): string {
  return base64(utf8.encode(text));
}

/** The bytes of standard base64 text; throws (a DOMException) on a character outside the alphabet. */
export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** `count` bytes from the runtime's CSPRNG (Web Crypto, a global in Node 20 too), as base64url. */
export function randomBase64url(count: number): string {
  return base64url(globalThis.crypto.getRandomValues(new Uint8Array(count)));
}

/**
 * The SHA-256 of the UTF-8 of `text`, base64url without padding: PKCE's S256 challenge (RFC 7636 §4.2) and a DPoP
 * proof's `ath` (RFC 9449 §4.2). By Web Crypto, so that one code path serves Node and browsers.
 */
export async function sha256Base64url(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', utf8.encode(text));
  return base64url(new Uint8Array(digest));
}
