// The client side of OAuth, which needs nothing of Node: `mcpwire/transport` and `mcpwire/browser` both export it.
export {
  type AuthorizationServerMetadata,
  discoverAuthorizationServer,
  discoverLegacyAuthorizationServer,
  discoverProtectedResource,
  type ProtectedResourceMetadata,
} from './metadata.js';
export {
  OAuthClient,
  type OAuthClientInformation,
  type OAuthClientOptions,
  type OAuthState,
  type OAuthStore,
  type OAuthTokens,
} from './oauth-client.js';
export { OAuthError } from './oauth-error.js';
export type { ApplicationType } from './registration.js';
export { type BearerChallenge, parseBearerChallenge } from './www-authenticate.js';
