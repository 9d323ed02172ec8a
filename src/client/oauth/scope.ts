import type { AuthorizationServerMetadata } from './metadata.js';

/** The scope by which an OpenID Connect style authorization server is asked for a refresh token. */
const OFFLINE_ACCESS = 'offline_access';

/**
 * The scope an authorization request asks `issuer` for, given the resource's scopes (`wanted`): with
 * `offline_access` when the server's metadata lists it, so that a server that issues refresh tokens only
 * on request issues one; without it when the server does not list it, since it is no resource's scope and
 * a server that does not know it may refuse the request (SEP-2207). No resource scope leaves the scope out,
 * so that the server grants its default, rather than a token for `offline_access` alone.
 */
export function requestScope(
  wanted: string | undefined,
  issuer: AuthorizationServerMetadata,
): string | undefined {
  const resource = [...new Set(scopes(wanted))].filter((s) => s !== OFFLINE_ACCESS);
  if (resource.length === 0) return undefined;
  if (issuer.scopes_supported?.includes(OFFLINE_ACCESS)) resource.push(OFFLINE_ACCESS);
  return resource.join(' ');
}

/** The space-separated scopes of both, each once, in the order first seen. */
export function union(held: string | undefined, more: string | undefined): string | undefined {
  const all = new Set([...scopes(held), ...scopes(more)]);
  return all.size === 0 ? undefined : [...all].join(' ');
}

function scopes(list: string | undefined): string[] {
  return list?.split(' ').filter(Boolean) ?? [];
}
