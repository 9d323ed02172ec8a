export { type IntrospectionOptions, introspectionVerifier } from '../../http/introspection-verifier.js';
export {
  ProtectedResource,
  type ProtectedResourceOptions,
  type Refusal,
  type TokenGrant,
  type TokenVerifier,
} from '../../http/protected-resource.js';
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
