import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

const REDIRECT = 'http://127.0.0.1:1/callback';

/**
 * The official SDK v1's OAuth provider, in memory, whose user approves at once: the authorization URL is fetched
 * and the code read off its redirect (`code`, for the transport's `finishAuth`). `keepRefreshToken: false` keeps
 * none of the refresh tokens it is given.
 */
export class ApprovingProvider implements OAuthClientProvider {
  code: string | undefined;
  private info: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = '';

  constructor(
    private readonly name: string,
    private readonly keepRefreshToken = true,
  ) {}

  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this.name, redirect_uris: [REDIRECT], grant_types: ['authorization_code'] };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    if (this.keepRefreshToken) this.saved = tokens;
    else {
      const { refresh_token: _dropped, ...kept } = tokens;
      this.saved = kept;
    }
  }
  async redirectToAuthorization(url: URL) {
    const response = await fetch(url, { redirect: 'manual' });
    await response.body?.cancel();
    this.code = new URL(response.headers.get('location')!).searchParams.get('code') ?? undefined;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}
