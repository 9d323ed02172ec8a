/**
 * Authorization with an MCP server's authorization server failed: discovery, registration, the user's
 * answer, or a token request. The message says which step and what the server said; `error` is the OAuth
 * error code when the server sent one (RFC 6749 §5.2).
 */
export class OAuthError extends Error {
  override readonly name = 'OAuthError';

  constructor(
    message: string,
    readonly error?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
