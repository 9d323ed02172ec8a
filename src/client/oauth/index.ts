export { type IntrospectionOptions, introspectionVerifier } from '../../http/introspection-verifier.js';
export {
  ProtectedResource,
  type ProtectedResourceOptions,
  type Refusal,
  type TokenGrant,
  type TokenVerifier,
} from '../../http/protected-resource.js';
export * from './client-api.js';
