import {
  type AuthorizationServerMetadata,
  discoverAuthorizationServer,
  discoverLegacyAuthorizationServer,
  discoverProtectedResource,
  type ProtectedResourceMetadata,
} from './metadata.js';
import type { AuthChallenge } from './www-authenticate.js';

/** What authorization is for: the RFC 8707 resource (none for a 2025-03-26 server), its scopes, its word on DPoP. */
export interface Target {
  resource: string | undefined;
  scopes: string[] | undefined;
  /** Whether the resource's metadata says it takes DPoP-bound tokens (RFC 9728 §2), or takes only those. */
  dpop: 'offered' | 'required' | undefined;
}

/**
 * Where an MCP server's tokens come from: the protected resource it is part of and the authorization server that
 * resource names. Found once, and again when `fresh` or when a challenge names other metadata; the authorization
 * server's metadata is fetched again only when the resource names another server. A server without the metadata is
 * a 2025-03-26 one, authorized by its own origin.
 */
export class ResourceDiscovery {
  private target: Target | undefined;
  private issuer: AuthorizationServerMetadata | undefined;

  constructor(private readonly fetchFn: typeof fetch) {}

  async find(
    serverUrl: URL,
    challenge: AuthChallenge | undefined,
    fresh: boolean,
  ): Promise<{ target: Target; issuer: AuthorizationServerMetadata }> {
    let target = this.target;
    if (target === undefined || fresh || challenge?.resourceMetadata !== undefined) {
      target = await this.discover(serverUrl, challenge?.resourceMetadata, target);
      this.target = target;
    }
    return { target, issuer: this.issuer! };
  }

  private async discover(
    serverUrl: URL,
    named: string | undefined,
    known: Target | undefined,
  ): Promise<Target> {
    const resource = await discoverProtectedResource(serverUrl, named, this.fetchFn);
    if (resource === undefined) {
      this.issuer = await discoverLegacyAuthorizationServer(serverUrl, this.fetchFn);
      return { resource: undefined, scopes: undefined, dpop: undefined };
    }
    const server = resource.authorization_servers[0];
    // Discovered metadata names its issuer exactly, so the issuer tells whether it is that server's.
    if (known?.resource === undefined || this.issuer?.issuer !== server) {
      this.issuer = await discoverAuthorizationServer(server, this.fetchFn);
    }
    return { resource: resource.resource, scopes: resource.scopes_supported, dpop: dpopOf(resource) };
  }
}

/** What a resource's metadata says of DPoP-bound tokens (RFC 9728 §2). */
function dpopOf(resource: ProtectedResourceMetadata): Target['dpop'] {
  if (resource.dpop_bound_access_tokens_required === true) return 'required';
  return Array.isArray(resource.dpop_signing_alg_values_supported) ? 'offered' : undefined;
}
