import { randomBytes } from 'node:crypto';
import { basicCredentials } from '../../http/basic-credentials.js';
import { type Clock, systemClock } from '../../session/clock.js';
import {
  type AuthorizationServerMetadata,
  discoverAuthorizationServer,
  discoverLegacyAuthorizationServer,
  discoverProtectedResource,
} from './metadata.js';
import { OAuthError } from './oauth-error.js';
import { createPkce } from './pkce.js';
import { type BearerChallenge, parseBearerChallenge } from './www-authenticate.js';

/** Tokens from a token endpoint (RFC 6749 §5.1), with when the access token expires. */
export interface OAuthTokens {
  access_token: string;
  token_type: string;
  refresh_token?: string;
  /** The scopes granted, space-separated, when the server said. */
  scope?: string;
  /** Epoch milliseconds, from `expires_in`. */
  expires_at?: number;
}

/** The client's identity at an authorization server: pre-registered, registered dynamically (RFC 7591), or a CIMD URL. */
export interface OAuthClientInformation {
  client_id: string;
  client_secret?: string;
  /** How the client authenticates at the token endpoint: `client_secret_basic`, `client_secret_post` or `none`. */
  token_endpoint_auth_method?: string;
}

/** What an OAuthClient remembers between runs: its registration at the issuer, and its tokens. */
export interface OAuthState {
  client?: OAuthClientInformation & { issuer: string };
  tokens?: OAuthTokens;
}

/** Keeps an OAuthClient's state (e.g. in the OS keychain), so that a new process need not sign in again. */
export interface OAuthStore {
  load(): OAuthState | undefined | Promise<OAuthState | undefined>;
  save(state: OAuthState): void | Promise<void>;
}

export interface OAuthClientOptions {
  /** Where the authorization server sends the user agent back with the code; registered with the client. */
  redirectUri: string;
  /**
   * Has the user sign in at `url` (open it in a browser, or show it), and resolves with the URL the user
   * agent was sent back to: the redirect URI with `code` and `state`, or `error`.
   */
  authorize(url: URL): Promise<string | URL>;
  /** The name dynamic registration gives the client. Default "mcpwire". */
  clientName?: string;
  /** An https URL of the client's Client ID Metadata Document: its `client_id` where the server takes one. */
  clientMetadataUrl?: string;
  /** Credentials registered beforehand with the authorization server: used instead of registering. */
  client?: OAuthClientInformation;
  /** Default: state kept in memory, for this process only. */
  store?: OAuthStore;
  /** The fetch that reaches the MCP and authorization servers. Default: the global fetch. */
  fetch?: typeof fetch;
  /** What token expiry is read against. Default: the system clock. */
  clock?: Pick<Clock, 'now'>;
}

interface Target {
  resource: string | undefined;
  scopes: string[] | undefined;
}

/** How many times one request is sent at most: once, then after each of up to two authorizations. */
const MAX_SENDS = 3;
/** An access token this close to its expiry is refreshed before it is sent, rather than refused after. */
const EXPIRY_MARGIN_MS = 10_000;

/**
 * OAuth 2.1 authorization for the HTTP transports of one MCP server (spec: basic/authorization), as a
 * `fetch` to give them (`new StreamableHttpClientConnection(url, { fetch: oauth.fetch })`, or
 * `connectUrl(client, url, { fetch: oauth.fetch })`).
 *
 * A server without Protected Resource Metadata is taken for a 2025-03-26 one: its origin is the authorization
 * server, with RFC 8414 metadata there or the default endpoints, and no `resource` is sent.
 *
 * Promises: requests to the MCP server's origin carry the access token; nothing else does. A token about to
 * expire is refreshed before it is sent. A 401 is answered by refreshing the token when there is a refresh
 * token, else by authorizing: the Protected
 * Resource Metadata (RFC 9728) names the authorization server, whose metadata (RFC 8414) must offer PKCE
 * with S256; the client is the pre-registered one, its CIMD URL, or registers itself (RFC 7591); the
 * authorization request carries PKCE, `state` and `resource` (RFC 8707), and the scopes of the challenge,
 * else all the resource supports, else none. A 403 `insufficient_scope` asks for the scopes the challenge
 * names besides those held (step-up), once per set of scopes. The request is then sent again; a request is
 * sent at most three times. Concurrent 401s share one authorization. Failures reject with OAuthError.
 */
export class OAuthClient {
  /** The fetch for the MCP server's transports. */
  readonly fetch: typeof fetch;
  private readonly base: typeof fetch;
  private readonly clock: Pick<Clock, 'now'>;
  private state: OAuthState | undefined;
  /** The MCP server's URL: the first request's. */
  private serverUrl: URL | undefined;
  /** What authorization is for, once discovered: the RFC 8707 resource (none for a 2025-03-26 server), its scopes. */
  private target: Target | undefined;
  private issuer: AuthorizationServerMetadata | undefined;
  /** The scopes of the last authorization request. */
  private requested: string | undefined;
  private flow: Promise<void> | undefined;

  constructor(private readonly options: OAuthClientOptions) {
    this.base = options.fetch ?? globalThis.fetch;
    this.clock = options.clock ?? systemClock;
    this.fetch = (input, init) => this.send(input, init);
  }

  /** The tokens held now, if any (read from the store on first use). */
  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.current()).tokens;
  }

  private async send(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const url = new URL(input instanceof Request ? input.url : input);
    this.serverUrl ??= url;
    if (url.origin !== this.serverUrl.origin) return this.base(input, init);
    const again = () => (input instanceof Request ? input.clone() : input);
    const held = (await this.current()).tokens;
    if (held?.refresh_token !== undefined && held.expires_at !== undefined) {
      if (held.expires_at - this.clock.now() < EXPIRY_MARGIN_MS) {
        await this.authorizeOnce(held.access_token, undefined, undefined, true);
      }
    }
    for (let sent = 1; ; sent++) {
      const token = (await this.current()).tokens?.access_token;
      const response = await this.base(again(), withBearer(init, token));
      if ((response.status !== 401 && response.status !== 403) || sent === MAX_SENDS) return response;
      const challenge = parseBearerChallenge(response.headers.get('www-authenticate'));
      let scope = challenge?.scope;
      if (response.status === 403) {
        if (challenge?.error !== 'insufficient_scope') return response;
        scope = union(this.requested, scope);
        // Asking again for what was already asked cannot change the answer.
        if (scope === this.requested) return response;
      }
      await response.body?.cancel();
      await this.authorizeOnce(token, challenge, scope, response.status === 401);
    }
  }

  /** One authorization however many requests were refused at once; none if the token changed meanwhile. */
  private async authorizeOnce(
    used: string | undefined,
    challenge: BearerChallenge | undefined,
    scope: string | undefined,
    refused: boolean,
  ): Promise<void> {
    if (this.flow !== undefined) return this.flow;
    if (this.state?.tokens?.access_token !== used) return;
    this.flow = this.obtain(challenge, scope, refused && used !== undefined).finally(() => {
      this.flow = undefined;
    });
    return this.flow;
  }

  private async obtain(
    challenge: BearerChallenge | undefined,
    scope: string | undefined,
    mayRefresh: boolean,
  ): Promise<void> {
    const state = await this.current();
    if (mayRefresh && state.tokens?.refresh_token !== undefined) {
      const refreshed = await this.refresh(state.tokens.refresh_token).catch(() => false);
      if (refreshed) return;
    }
    const target = await this.discover(challenge);
    const issuer = this.issuer!;
    if (!issuer.code_challenge_methods_supported?.includes('S256')) {
      throw new OAuthError(
        `The authorization server ${issuer.issuer} does not offer PKCE with S256 (code_challenge_methods_supported), ` +
          'which MCP requires: not authorizing',
      );
    }
    const wanted = scope ?? target.scopes?.join(' ');
    const client = await this.clientAt(issuer);
    const pkce = createPkce();
    const nonce = randomBytes(16).toString('base64url');
    const url = new URL(issuer.authorization_endpoint);
    const query = url.searchParams;
    query.set('response_type', 'code');
    query.set('client_id', client.client_id);
    query.set('redirect_uri', this.options.redirectUri);
    query.set('code_challenge', pkce.challenge);
    query.set('code_challenge_method', 'S256');
    query.set('state', nonce);
    if (target.resource !== undefined) query.set('resource', target.resource);
    if (wanted) query.set('scope', wanted);
    this.requested = wanted;
    const back = new URL(String(await this.options.authorize(url)), this.options.redirectUri);
    if (back.searchParams.get('state') !== nonce) {
      throw new OAuthError(
        'The authorization response does not carry the state of the request: not using it',
      );
    }
    const error = back.searchParams.get('error');
    if (error !== null) {
      const why = back.searchParams.get('error_description');
      throw new OAuthError(`Authorization was refused: ${error}${why ? `: ${why}` : ''}`, error);
    }
    const code = back.searchParams.get('code');
    if (code === null) throw new OAuthError('The authorization response carries no code');
    await this.token(issuer, client, target, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: this.options.redirectUri,
      code_verifier: pkce.verifier,
    });
  }

  /** Trades the refresh token for new tokens; false when the server refused it. */
  private async refresh(refreshToken: string): Promise<boolean> {
    const target = await this.discover(undefined);
    const client = await this.clientAt(this.issuer!);
    await this.token(this.issuer!, client, target, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    });
    return true;
  }

  /**
   * The resource's metadata and its authorization server's, found once (again when a challenge names other
   * metadata); a server without the metadata is a 2025-03-26 one, authorized by its own origin.
   */
  private async discover(challenge: BearerChallenge | undefined): Promise<Target> {
    if (this.target !== undefined && challenge?.resourceMetadata === undefined) return this.target;
    const url = this.serverUrl!;
    const resource = await discoverProtectedResource(url, challenge?.resourceMetadata, this.base);
    if (resource === undefined) {
      this.issuer = await discoverLegacyAuthorizationServer(url, this.base);
      this.target = { resource: undefined, scopes: undefined };
    } else {
      this.issuer = await discoverAuthorizationServer(resource.authorization_servers[0], this.base);
      this.target = { resource: resource.resource, scopes: resource.scopes_supported };
    }
    return this.target;
  }

  /** Who the client is at `issuer`: pre-registered, registered before, its CIMD URL, or registered now. */
  private async clientAt(issuer: AuthorizationServerMetadata): Promise<OAuthClientInformation> {
    if (this.options.client !== undefined) return this.options.client;
    const state = await this.current();
    if (state.client?.issuer === issuer.issuer) return state.client;
    const cimd = this.options.clientMetadataUrl;
    if (cimd !== undefined && issuer.client_id_metadata_document_supported === true) {
      return { client_id: cimd, token_endpoint_auth_method: 'none' };
    }
    if (issuer.registration_endpoint === undefined) {
      throw new OAuthError(
        `The authorization server ${issuer.issuer} offers no client registration: give the OAuthClient ` +
          'pre-registered `client` credentials' +
          (cimd === undefined ? ' or a `clientMetadataUrl`' : ''),
      );
    }
    // A public client where the server takes one; else one with a secret, sent as the server prefers.
    const method = issuer.token_endpoint_auth_methods_supported?.includes('none')
      ? 'none'
      : secretMethod(issuer);
    const answer = await this.postJson(issuer.registration_endpoint, 'Client registration', {
      client_name: this.options.clientName ?? 'mcpwire',
      redirect_uris: [this.options.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: method,
    });
    if (typeof answer.client_id !== 'string') {
      throw new OAuthError(`Client registration at ${issuer.registration_endpoint} answered no client_id`);
    }
    const client: OAuthClientInformation & { issuer: string } = {
      issuer: issuer.issuer,
      client_id: answer.client_id,
      token_endpoint_auth_method:
        typeof answer.token_endpoint_auth_method === 'string' ? answer.token_endpoint_auth_method : undefined,
    };
    if (typeof answer.client_secret === 'string') client.client_secret = answer.client_secret;
    await this.update({ client });
    return client;
  }

  /** A token request (RFC 6749 §4.1.3, §6) with the client's authentication; keeps what it answers. */
  private async token(
    issuer: AuthorizationServerMetadata,
    client: OAuthClientInformation,
    target: Target,
    params: Record<string, string>,
  ): Promise<void> {
    const body = new URLSearchParams(params);
    if (target.resource !== undefined) body.set('resource', target.resource);
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    const method = client.token_endpoint_auth_method ?? authMethod(client, issuer);
    if (method === 'client_secret_basic' && client.client_secret !== undefined) {
      headers.authorization = basicCredentials(client.client_id, client.client_secret);
    } else {
      body.set('client_id', client.client_id);
      if (method === 'client_secret_post' && client.client_secret !== undefined) {
        body.set('client_secret', client.client_secret);
      }
    }
    const answer = await this.post(issuer.token_endpoint, 'The token request', {
      method: 'POST',
      headers,
      body,
    });
    if (typeof answer.access_token !== 'string' || typeof answer.token_type !== 'string') {
      throw new OAuthError(
        `The token endpoint ${issuer.token_endpoint} answered no access_token and token_type`,
      );
    }
    if (answer.token_type.toLowerCase() !== 'bearer') {
      throw new OAuthError(`The token endpoint issued a ${answer.token_type} token; MCP uses Bearer tokens`);
    }
    const previous = (await this.current()).tokens;
    const tokens: OAuthTokens = { access_token: answer.access_token, token_type: answer.token_type };
    // A refresh answer without a refresh token leaves the old one in force (RFC 6749 §6).
    const refreshToken =
      typeof answer.refresh_token === 'string' ? answer.refresh_token : previous?.refresh_token;
    if (refreshToken !== undefined) tokens.refresh_token = refreshToken;
    if (typeof answer.scope === 'string') tokens.scope = answer.scope;
    if (typeof answer.expires_in === 'number')
      tokens.expires_at = this.clock.now() + answer.expires_in * 1000;
    await this.update({ tokens });
  }

  private postJson(url: string, what: string, json: object): Promise<Record<string, unknown>> {
    return this.post(url, what, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(json),
    });
  }

  /** POSTs and reads a JSON object; an error answer rejects with the server's error and description. */
  private async post(url: string, what: string, init: RequestInit): Promise<Record<string, unknown>> {
    let response: Response;
    try {
      response = await this.base(url, init);
    } catch (err) {
      throw new OAuthError(`${what} to ${url} failed: ${(err as Error).message}`, undefined, { cause: err });
    }
    const body: unknown = await response.json().catch(() => undefined);
    const answer = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    if (!response.ok) {
      const error = typeof answer.error === 'string' ? answer.error : undefined;
      const why = typeof answer.error_description === 'string' ? `: ${answer.error_description}` : '';
      throw new OAuthError(
        `${what} to ${url} failed: HTTP ${response.status}${error ? ` ${error}` : ''}${why}`,
        error,
      );
    }
    return answer;
  }

  private async current(): Promise<OAuthState> {
    this.state ??= (await this.options.store?.load()) ?? {};
    return this.state;
  }

  private async update(change: OAuthState): Promise<void> {
    this.state = { ...(await this.current()), ...change };
    await this.options.store?.save(this.state);
  }
}

/** The token endpoint authentication of a client registered without saying: by its secret, as the server offers. */
function authMethod(client: OAuthClientInformation, issuer: AuthorizationServerMetadata): string {
  return client.client_secret === undefined ? 'none' : secretMethod(issuer);
}

/** How a client with a secret authenticates at `issuer`'s token endpoint: Basic where offered, else in the body. */
function secretMethod(issuer: AuthorizationServerMetadata): string {
  const offered = issuer.token_endpoint_auth_methods_supported;
  // RFC 8414 §2: without the field, client_secret_basic is the default.
  if (offered === undefined || offered.includes('client_secret_basic')) return 'client_secret_basic';
  return offered.includes('client_secret_post') ? 'client_secret_post' : 'client_secret_basic';
}

/** The space-separated scopes of both, each once, in the order first seen. */
function union(held: string | undefined, more: string | undefined): string | undefined {
  const all = new Set([...(held?.split(' ') ?? []), ...(more?.split(' ') ?? [])].filter(Boolean));
  return all.size === 0 ? undefined : [...all].join(' ');
}

function withBearer(init: RequestInit | undefined, token: string | undefined): RequestInit | undefined {
  if (token === undefined) return init;
  const headers = new Headers(init?.headers);
  headers.set('authorization', `Bearer ${token}`);
  return { ...init, headers };
}
