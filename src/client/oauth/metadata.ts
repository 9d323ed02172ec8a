import { isSecureEndpoint } from '../../http/guards.js';
import { isObject, isStringArray } from '../../protocol/param-checks.js';
import { OAuthError } from './oauth-error.js';
import { oauthJson } from './oauth-post.js';

/** Protected Resource Metadata (RFC 9728 §2), as far as a client uses it. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported?: string[];
  [field: string]: unknown;
}

/** Authorization Server Metadata (RFC 8414 §2, or OpenID Connect discovery), as far as a client uses it. */
export interface AuthorizationServerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint?: string;
  scopes_supported?: string[];
  code_challenge_methods_supported?: string[];
  grant_types_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
  /** The server takes a Client ID Metadata Document URL as `client_id`. */
  client_id_metadata_document_supported?: boolean;
  /** The server's authorization responses carry `iss` (RFC 9207 §3). */
  authorization_response_iss_parameter_supported?: boolean;
  [field: string]: unknown;
}

/**
 * The metadata of the protected resource that `serverUrl` is part of (RFC 9728 §3): from `named` (the
 * challenge's `resource_metadata`) when given, else from the well-known URL with the server's path, then
 * the one at the root; undefined when neither of those exists (a server older than 2025-06-18). Rejects
 * with an OAuthError when the named one does not answer with metadata, or when the metadata's `resource`
 * does not cover `serverUrl` (another origin, or a path the server is not under): a token obtained for it
 * must never be sent here.
 */
export async function discoverProtectedResource(
  serverUrl: URL,
  named: string | undefined,
  fetchFn: typeof fetch,
): Promise<ProtectedResourceMetadata | undefined> {
  if (!isSecureEndpoint(serverUrl)) {
    throw new OAuthError(
      `${serverUrl} is not https: an access token sent to it would cross the network in the clear (RFC 6750 ` +
        '§5.3; plain http only on loopback); not authorizing',
    );
  }
  const path = serverUrl.pathname === '/' ? '' : serverUrl.pathname.replace(/\/$/, '');
  const candidates =
    named !== undefined
      ? [new URL(named, serverUrl)]
      : [
          ...(path ? [new URL(`/.well-known/oauth-protected-resource${path}`, serverUrl)] : []),
          new URL('/.well-known/oauth-protected-resource', serverUrl),
        ];
  const what = `the Protected Resource Metadata of ${serverUrl}`;
  const found = await firstJson(candidates, fetchFn, what);
  if (found === undefined) {
    if (named === undefined) return undefined;
    throw new OAuthError(`Could not read ${what} at ${named}, where the server's challenge said it is`);
  }
  const { url, body } = found;
  const meta = body as Partial<ProtectedResourceMetadata>;
  if (typeof meta.resource !== 'string' || !URL.canParse(meta.resource)) {
    throw new OAuthError(`The Protected Resource Metadata at ${url} has no valid "resource"`);
  }
  if (!covers(new URL(meta.resource), serverUrl)) {
    throw new OAuthError(
      `The Protected Resource Metadata at ${url} is for ${meta.resource}, which ${serverUrl} is not part of; ` +
        'refusing to authorize for it',
    );
  }
  const servers = meta.authorization_servers;
  if (!isStringArray(servers) || servers.length === 0) {
    throw new OAuthError(`The Protected Resource Metadata at ${url} names no authorization server`);
  }
  checkLists(meta, RESOURCE_LISTS, `The Protected Resource Metadata at ${url}`);
  return meta as ProtectedResourceMetadata;
}

/**
 * The metadata of the authorization server `issuer` (RFC 8414 §3.1 with the issuer's path inserted after
 * the well-known prefix, then OpenID Connect discovery both ways). Rejects with an OAuthError when none
 * answers, when the endpoints are missing, or when the metadata names another issuer than `issuer`, compared
 * as strings (RFC 8414 §3.3: a trailing slash makes another issuer).
 */
export async function discoverAuthorizationServer(
  issuer: string,
  fetchFn: typeof fetch,
): Promise<AuthorizationServerMetadata> {
  checkSecure(issuer, 'The authorization server');
  const base = new URL(issuer);
  const path = base.pathname === '/' ? '' : base.pathname.replace(/\/$/, '');
  const candidates = path
    ? [
        `/.well-known/oauth-authorization-server${path}`,
        `/.well-known/openid-configuration${path}`,
        `${path}/.well-known/openid-configuration`,
      ]
    : ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'];
  const what = `the metadata of the authorization server ${issuer}`;
  const urls = candidates.map((p) => new URL(p, base));
  const found = await firstJson(urls, fetchFn, what);
  if (found === undefined) throw new OAuthError(`Could not read ${what}; tried ${urls.join(', ')}`);
  return checked(found, issuer);
}

/**
 * The authorization server of an MCP server without Protected Resource Metadata (spec 2025-03-26): the MCP
 * server's origin, with its RFC 8414 metadata there, or else the default endpoints `/authorize`, `/token`
 * and `/register` at that origin, with PKCE S256 (which that revision requires of every server).
 */
export async function discoverLegacyAuthorizationServer(
  serverUrl: URL,
  fetchFn: typeof fetch,
): Promise<AuthorizationServerMetadata> {
  const issuer = serverUrl.origin;
  const what = `the metadata of the authorization server ${issuer}`;
  const found = await firstJson([new URL('/.well-known/oauth-authorization-server', issuer)], fetchFn, what);
  // The metadata was found from the MCP server's own URL, not from an issuer, so its issuer is not checked.
  if (found !== undefined) return checked(found, undefined);
  const defaults: AuthorizationServerMetadata = {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    registration_endpoint: `${issuer}/register`,
    code_challenge_methods_supported: ['S256'],
  };
  guessed.add(defaults);
  return defaults;
}

/** The default endpoints of servers that published no metadata at all. */
const guessed = new WeakSet<AuthorizationServerMetadata>();

/**
 * `err`, an authorization's failure at `issuer`, told that its endpoints were guessed when they were: a server that
 * publishes no OAuth metadata at all may take no OAuth token, and want one its operator gives out instead.
 */
export function failureAt(issuer: AuthorizationServerMetadata, serverUrl: URL, err: unknown): unknown {
  if (!guessed.has(issuer) || !(err instanceof OAuthError)) return err;
  return new OAuthError(
    `${err.message}. ${serverUrl} publishes no OAuth metadata (no Protected Resource Metadata, nothing at ` +
      `${issuer.issuer}/.well-known/oauth-authorization-server), so its endpoints were the defaults of the ` +
      '2025-03-26 revision, a guess: it may take no OAuth token at all. If it takes one its operator gives out, ' +
      'send that as Authorization: Bearer …',
    err.error,
    { cause: err },
  );
}

/** The endpoints a client sends to: the first two are required (RFC 8414 §2), registration is optional. */
const ENDPOINTS = ['authorization_endpoint', 'token_endpoint', 'registration_endpoint'] as const;

/**
 * Authorization server metadata that names its endpoints and, when `issuer` is given, that issuer (RFC 8414
 * §3.3); or the OAuthError saying what is wrong.
 */
function checked(
  { url, body }: { url: URL; body: Record<string, unknown> },
  issuer: string | undefined,
): AuthorizationServerMetadata {
  const meta = body as Partial<AuthorizationServerMetadata>;
  for (const field of ENDPOINTS) {
    const endpoint = meta[field];
    if (endpoint === undefined && field === 'registration_endpoint') continue;
    if (typeof endpoint !== 'string' || !URL.canParse(endpoint)) {
      throw new OAuthError(`The authorization server metadata at ${url} has no valid "${field}"`);
    }
    checkSecure(endpoint, `The "${field}" of the metadata at ${url},`);
  }
  if (typeof meta.issuer !== 'string')
    throw new OAuthError(`The authorization server metadata at ${url} names no issuer`);
  // The endpoints of metadata that names another issuer may be anyone's: none of them is used.
  if (issuer !== undefined && meta.issuer !== issuer) {
    throw new OAuthError(
      `The authorization server metadata at ${url} names the issuer ${JSON.stringify(meta.issuer)}, not ` +
        `${JSON.stringify(issuer)}, which its well-known URL was built from (RFC 8414 §3.3): not using it. The ` +
        "resource's metadata must name the authorization server exactly as that server names itself",
    );
  }
  checkLists(meta, ISSUER_LISTS, `The authorization server metadata at ${url}`);
  return meta as AuthorizationServerMetadata;
}

/** Refuses an authorization server URL that is not https, but on loopback (spec: "Communication Security"). */
function checkSecure(url: string, what: string): void {
  if (isSecureEndpoint(new URL(url))) return;
  throw new OAuthError(
    `${what} ${url} is not https: MCP requires every authorization server endpoint to be (plain http only on ` +
      'loopback), and the client would send its credentials, codes and tokens there in the clear; not authorizing',
  );
}

/** The lists a client reads of each metadata (RFC 9728 §2, RFC 8414 §2): JSON arrays of strings when present. */
const RESOURCE_LISTS = ['scopes_supported'] as const;
const ISSUER_LISTS = [
  'scopes_supported',
  'code_challenge_methods_supported',
  'grant_types_supported',
  'token_endpoint_auth_methods_supported',
] as const;

/**
 * Refuses metadata with a list the client reads that is not a list of strings: read as it is, a string would
 * pass for a list (`"S256x".includes('S256')`) and a number would throw a TypeError saying nothing of why.
 */
function checkLists(meta: Record<string, unknown>, fields: readonly string[], what: string): void {
  for (const field of fields) {
    const list = meta[field];
    if (list !== undefined && !isStringArray(list)) {
      throw new OAuthError(`${what} has a "${field}" that is not a list of strings: ${shortJson(list)}`);
    }
  }
}

function shortJson(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** Whether a token for `resource` may be sent to `url`: same origin, and `url`'s path at or under its path. */
function covers(resource: URL, url: URL): boolean {
  if (resource.origin !== url.origin) return false;
  const base = resource.pathname.replace(/\/$/, '');
  return url.pathname === base || url.pathname.startsWith(`${base}/`);
}

/** The first of `urls` that answers 200 with a JSON object; undefined when none does. A network failure stops the search. */
async function firstJson(
  urls: URL[],
  fetchFn: typeof fetch,
  what: string,
): Promise<{ url: URL; body: Record<string, unknown> } | undefined> {
  for (const url of urls) {
    let response: Response;
    try {
      response = await fetchFn(url, { headers: { accept: 'application/json' } });
    } catch (err) {
      throw new OAuthError(`Could not fetch ${what} from ${url}: ${(err as Error).message}`, undefined, {
        cause: err,
      });
    }
    if (!response.ok) {
      await response.body?.cancel();
      continue;
    }
    const body = await oauthJson(response);
    if (isObject(body)) return { url, body };
  }
  return undefined;
}
