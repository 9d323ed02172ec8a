import type { Clock } from '../../util/clock.js';
import type { OAuthClientInformation, OAuthStore } from './oauth-state.js';
import type { ApplicationType } from './registration.js';
import type { ClientKey } from './token-auth.js';

/**
 * How tokens are obtained: a person signs in (the authorization code grant with PKCE), or the client alone, with
 * its own credentials or a workload's identity, or with the grant a person's identity provider issues it.
 */
export type OAuthClientOptions = OAuthClientCommonOptions &
  (SignInOptions | ClientCredentialsOptions | WorkloadOptions | EnterpriseOptions);

/** A person signs in, in a browser: the authorization code grant with PKCE. */
export interface SignInOptions {
  /** Where the authorization server sends the user agent back with the code; registered with the client. */
  redirectUri: string;
  /**
   * Has the user sign in at `url` (open it in a browser, or show it), and resolves with the URL the user
   * agent was sent back to: the redirect URI with `code` and `state`, or `error`.
   */
  authorize(url: URL): Promise<string | URL>;
}

/**
 * The client alone, for machine-to-machine use (the OAuth client credentials extension of MCP): tokens from the
 * token endpoint with the client's own credentials, registered beforehand, and no person in the loop. A refused or
 * expiring token is obtained again the same way.
 */
export interface ClientCredentialsOptions {
  grant: 'client_credentials';
  /**
   * The client's registration: with its secret (`client_secret_basic` or `_post`), or with the private key whose
   * public half the authorization server holds (`privateKey`: private_key_jwt, RFC 7523), which never leaves
   * this process and is never stored.
   */
  client: OAuthClientInformation & ({ client_secret: string } | { privateKey: ClientKey });
}

/**
 * A workload, not a person (workload identity federation, SEP-1933): tokens from the token endpoint for the identity
 * token its platform issued it (the JWT-bearer grant, RFC 7523 §2.1), no secret and no one in the loop. A refused
 * or expiring token is obtained again the same way; a token request the server refuses fails the request, without
 * trying another grant.
 */
export interface WorkloadOptions {
  grant: 'jwt_bearer';
  /** The client the authorization server knows the workload as: usually a `client_id` alone (the token vouches). */
  client: OAuthClientInformation;
  /**
   * The workload's identity token, a JWT whose `aud` names the authorization server (`issuer`). Asked anew for each
   * token: such tokens are short-lived, and their platform rewrites them (a file, a metadata endpoint).
   */
  assertion(issuer: string): string | Promise<string>;
}

/**
 * A person who signed in to their organisation's identity provider (enterprise-managed authorization, SEP-990):
 * the provider, asked with the person's ID token, issues a grant for the MCP server's authorization server (an
 * identity assertion authorization grant, ID-JAG: token exchange, RFC 8693) if its policy lets this client reach
 * that server; the client trades it there for a token (the JWT-bearer grant, RFC 7523 §2.1). No sign-in per server.
 * A refused or expiring token is obtained again the same way; a request either server refuses fails the request.
 */
export interface EnterpriseOptions {
  grant: 'enterprise';
  /** The client's registration at the MCP server's authorization server: the grant names its `client_id`. */
  client: OAuthClientInformation & { privateKey?: ClientKey };
  identityProvider: IdentityProvider;
}

/** The organisation's identity provider, where the person signed in (OpenID Connect). */
export interface IdentityProvider {
  /** Its issuer: its metadata (RFC 8414, or OpenID Connect discovery) names its token endpoint. https but on loopback. */
  issuer: string;
  /** The client's registration at the identity provider, which its ID tokens are for (their `aud`). */
  client: OAuthClientInformation & { privateKey?: ClientKey };
  /** The person's ID token from their sign-in there; asked anew for each grant (the app keeps it fresh). */
  idToken(): string | Promise<string>;
}

export interface OAuthClientCommonOptions {
  /** The name dynamic registration gives the client. Default "mcpwire". */
  clientName?: string;
  /**
   * The `application_type` dynamic registration gives the client. Default: "native" for a loopback or
   * private-scheme redirect URI, else "web".
   */
  applicationType?: ApplicationType;
  /** An https URL of the client's Client ID Metadata Document: its `client_id` where the server takes one. */
  clientMetadataUrl?: string;
  /** Credentials registered beforehand with the authorization server: used instead of registering. */
  client?: OAuthClientInformation;
  /** Default: state kept in memory, for this process only. */
  store?: OAuthStore;
  /** The fetch that reaches the MCP and authorization servers. Default: the global fetch. */
  fetch?: typeof fetch;
  /**
   * How long one request of authorization may take to be answered, in ms: a metadata document, a registration,
   * a token. Past it, authorization fails with an OAuthError and the next refused request starts it afresh.
   * The person's sign-in (`authorize`) is not bounded by it. Default 30 s.
   */
  timeoutMs?: number;
  /** What token expiry is read against. Default: the system clock. */
  clock?: Pick<Clock, 'now'>;
}
