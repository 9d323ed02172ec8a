import type { ClientKey } from './token-auth.js';
/** Tokens from a token endpoint (RFC 6749 §5.1), with when the access token expires. */
export interface OAuthTokens {
  access_token: string;
  token_type: string;
  refresh_token?: string;
  /** The scopes granted, space-separated, when the server said. */
  scope?: string;
  /** Epoch milliseconds, from `expires_in`. */
  expires_at?: number;
  /**
   * The issuer of the authorization server that issued them: their refresh token goes to no other. Absent in
   * state saved by a version that did not record it.
   */
  issuer?: string;
}

/** The client's identity at an authorization server: pre-registered, registered dynamically (RFC 7591), or a CIMD URL. */
export interface OAuthClientInformation {
  client_id: string;
  client_secret?: string;
  /** How the client authenticates at the token endpoint: `client_secret_basic`, `client_secret_post` or `none`. */
  token_endpoint_auth_method?: string;
  /**
   * The issuer of the authorization server these credentials are registered with. Pre-registered credentials
   * with it are used at that server only; without it, at the first one the client is sent to.
   */
  issuer?: string;
}

/** What an OAuthClient remembers between runs: its registration at the issuer, and its tokens. */
export interface OAuthState {
  client?: OAuthClientInformation & { issuer: string };
  tokens?: OAuthTokens;
  /** The private key DPoP-bound tokens are bound to (RFC 9449): they, and their refresh token, need it. */
  dpopKey?: ClientKey;
}

/** Keeps an OAuthClient's state (e.g. in the OS keychain), so that a new process need not sign in again. */
export interface OAuthStore {
  load(): OAuthState | undefined | Promise<OAuthState | undefined>;
  save(state: OAuthState): void | Promise<void>;
  /**
   * For a store several processes share (a file): runs `refresh` while no other process runs one with this store,
   * and resolves as it does; `load` inside it reads what the store holds now. The OAuthClient refreshes inside it,
   * taking the tokens another process got meanwhile instead of refreshing again, so that a rotating refresh token
   * is used once.
   */
  exclusive?<T>(refresh: () => Promise<T>): Promise<T>;
}
