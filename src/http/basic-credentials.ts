/**
 * The `Authorization` value of OAuth client_secret_basic (RFC 6749 §2.3.1): the id and the secret each
 * form-encoded, joined by a colon, in base64; so that a colon or a non-ASCII character in either survives.
 */
export function basicCredentials(id: string, secret: string): string {
  // Form-encoded, the text is ASCII: btoa takes it as it is.
  return `Basic ${btoa(`${formEncode(id)}:${formEncode(secret)}`)}`;
}

function formEncode(text: string): string {
  return new URLSearchParams({ x: text }).toString().slice(2);
}
