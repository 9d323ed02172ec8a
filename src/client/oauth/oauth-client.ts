import { randomBase64url } from '../../util/base64.js';
import { type Clock, systemClock } from '../../util/clock.js';
import { plainFetch } from '../http/plain-fetch.js';
import { authorizationCode } from './authorization-response.js';
import { bounded } from './bounded-fetch.js';
import { DPoPProver } from './dpop.js';
import { type Assertion, idJagAssertions } from './id-jag.js';
import { type AuthorizationServerMetadata, failureAt } from './metadata.js';
import type {
  ClientCredentialsOptions,
  EnterpriseOptions,
  OAuthClientOptions,
  SignInOptions,
  WorkloadOptions,
} from './oauth-client-options.js';
import { OAuthError } from './oauth-error.js';
import type { OAuthClientInformation, OAuthState, OAuthTokens } from './oauth-state.js';
import { createPkce } from './pkce.js';
import { registerClient } from './registration.js';
import { ResourceDiscovery, type Target } from './resource-discovery.js';
import { requestScope, union } from './scope.js';
import { sendWithToken } from './token-presentation.js';
import { requestTokens } from './token-request.js';
import { type AuthChallenge, parseChallenge } from './www-authenticate.js';

export type { OAuthClientInformation, OAuthState, OAuthStore, OAuthTokens } from './oauth-state.js';

/** Why authorization is needed: the token is about to expire, the server refused it (401), or wants more scope (403). */
type Cause = 'expiring' | 'refused' | 'insufficient';

/** How many times one request is sent at most: once, then after each of up to two authorizations. */
const MAX_SENDS = 3;
/** An access token this close to its expiry is refreshed before it is sent, rather than refused after. */
const EXPIRY_MARGIN_MS = 10_000;
const DEFAULT_TIMEOUT_MS = 30_000;
/** The JWT-bearer authorization grant (RFC 7523 §2.1). */
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * OAuth 2.1 authorization for the HTTP transports of one MCP server (spec: basic/authorization, 2025-11-25
 * and 2026-07-28 alike), as a `fetch` to give them (`new StreamableHTTPClientConnection(url, { fetch:
 * oauth.fetch })`, or `connectUrl(client, url, { fetch: oauth.fetch })`).
 *
 * A server without Protected Resource Metadata is taken for a 2025-03-26 one: its origin is the authorization
 * server, with RFC 8414 metadata there or the default endpoints, and no `resource` is sent.
 *
 * Promises: requests to the MCP server's origin carry the access token; nothing else does. A token about to
 * expire is refreshed before it is sent. A 401 is answered by reading the Protected Resource Metadata (RFC
 * 9728) again, then by refreshing the token when there is a refresh token from the authorization server it
 * names, else by authorizing. That server's metadata (RFC 8414) must name it exactly and offer PKCE with
 * S256; the client is the pre-registered one, its CIMD URL, or registers itself (RFC 7591, with an
 * `application_type`), again when the authorization server changed. The authorization request carries
 * PKCE, `state` and `resource` (RFC 8707), and the scopes of the challenge, else all the resource supports,
 * else none (with `offline_access` beside them where the server lists it); the response must carry its
 * `state` and its server's `iss` (RFC 9207). A 403 `insufficient_scope` asks for the scopes the challenge
 * names besides those held (step-up), once per set of scopes. The request is then sent again; a request is
 * sent at most three times (each once more when a DPoP nonce is asked for). Concurrent 401s share one
 * authorization, and processes sharing a store that is `exclusive` one refresh. Failures reject with OAuthError. No token is sought for a server, nor anything sent
 * to an authorization server endpoint, that is not https (but on loopback). A machine client (`grant`) gets its
 * tokens with its own credentials, or a workload's identity token, instead of a sign-in; an enterprise client with
 * the grant its user's identity provider issues for the authorization server (asked again for each token).
 * Where the resource takes DPoP-bound tokens (its challenge or metadata says so) and its authorization server issues
 * them, tokens are bound to a key of the client's (RFC 9449), kept in the store with them, and each request to
 * either server carries a new proof of it, with the nonce that server asked for; else tokens are Bearer.
 */
export class OAuthClient {
  /** The fetch for the MCP server's transports. */
  readonly fetch: typeof fetch;
  private readonly base: typeof fetch;
  /** `base`, bounded by `timeoutMs`: what reaches the authorization server and the metadata. */
  private readonly authorizing: typeof fetch;
  private readonly clock: Pick<Clock, 'now'>;
  private state: OAuthState | undefined;
  /** The MCP server's URL: the first request's. */
  private serverUrl: URL | undefined;
  private readonly discovery: ResourceDiscovery;
  /** What a JWT-bearer grant presents, for the client that makes one: a workload's identity token, or an ID-JAG. */
  private readonly assertion: Assertion | undefined;
  /** The key DPoP-bound tokens are bound to, once the resource and its authorization server both take them. */
  private prover: DPoPProver | undefined;
  /** The issuer that pre-registered credentials without one were first used with: they are used there only. */
  private preRegisteredAt: string | undefined;
  /** The scopes of the last authorization request. */
  private requested: string | undefined;
  private flow: Promise<void> | undefined;

  constructor(private readonly options: OAuthClientOptions) {
    this.base = plainFetch(options.fetch);
    this.authorizing = bounded(this.base, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    this.discovery = new ResourceDiscovery(this.authorizing);
    if ('grant' in options && options.grant !== 'client_credentials') {
      this.assertion =
        options.grant === 'jwt_bearer'
          ? options.assertion
          : idJagAssertions(options.identityProvider, this.authorizing);
    }
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
        await this.authorizeOnce(held.access_token, undefined, undefined, 'expiring');
      }
    }
    for (let sent = 1; ; sent++) {
      const tokens = (await this.current()).tokens;
      const token = tokens?.access_token;
      const response = await sendWithToken(this.base, again, init, tokens, await this.proverFor(tokens));
      if ((response.status !== 401 && response.status !== 403) || sent === MAX_SENDS) return response;
      const challenge = parseChallenge(response.headers.get('www-authenticate'));
      // A nonce still wanted after the one more send that carried it: the token is not what is refused.
      if (challenge?.error === 'use_dpop_nonce') return response;
      let scope = challenge?.scope;
      if (response.status === 403) {
        if (challenge?.error !== 'insufficient_scope') return response;
        scope = union(this.requested, scope);
        // Asking again for what was already asked cannot change the answer.
        if (scope === this.requested) return response;
      }
      await response.body?.cancel();
      await this.authorizeOnce(token, challenge, scope, response.status === 401 ? 'refused' : 'insufficient');
    }
  }

  /** One authorization however many requests were refused at once; none if the token changed meanwhile. */
  private async authorizeOnce(
    used: string | undefined,
    challenge: AuthChallenge | undefined,
    scope: string | undefined,
    cause: Cause,
  ): Promise<void> {
    if (this.flow !== undefined) return this.flow;
    if (this.state?.tokens?.access_token !== used) return;
    this.flow = this.obtain(challenge, scope, cause).finally(() => {
      this.flow = undefined;
    });
    return this.flow;
  }

  private async obtain(challenge: AuthChallenge | undefined, scope: string | undefined, cause: Cause) {
    // A refused token may mean that the resource moved to another authorization server (SEP-2352).
    const { target, issuer } = await this.discovery.find(this.serverUrl!, challenge, cause === 'refused');
    this.prover = await this.proverAt(issuer, target, challenge?.dpop === true);
    return this.obtainAt(issuer, target, scope, cause).catch((err) => {
      throw failureAt(issuer, this.serverUrl!, err);
    });
  }

  private async obtainAt(
    issuer: AuthorizationServerMetadata,
    target: Target,
    scope: string | undefined,
    cause: Cause,
  ) {
    const state = await this.current();
    let held = state.tokens;
    if (held !== undefined && (held.issuer ?? state.client?.issuer ?? issuer.issuer) !== issuer.issuer) {
      // Tokens of another authorization server: not for this resource now, and their refresh token is not
      // for this server's token endpoint.
      await this.update({ tokens: undefined });
      held = undefined;
    }
    if (cause !== 'insufficient' && held?.refresh_token !== undefined) {
      const refreshed = await this.refreshOnce(issuer, target, held).catch(() => false);
      if (refreshed) return;
    }
    const options = this.options;
    if ('grant' in options) return this.machine(options, issuer, target, scope);
    await this.signIn(options, issuer, target, scope);
  }

  /**
   * A token for the client itself, no one signing in: with its own credentials (the client credentials grant), or
   * with an assertion (the JWT-bearer grant): a workload's identity token, or the grant a person's identity
   * provider issues; for the scope asked, else all the resource has.
   */
  private async machine(
    options: ClientCredentialsOptions | WorkloadOptions | EnterpriseOptions,
    issuer: AuthorizationServerMetadata,
    target: Target,
    scope: string | undefined,
  ) {
    const grant = options.grant === 'client_credentials' ? 'client_credentials' : JWT_BEARER_GRANT;
    if (issuer.grant_types_supported?.includes(grant) === false) {
      throw new OAuthError(
        `The authorization server ${issuer.issuer} does not offer the ${grant} grant (its ` +
          'grant_types_supported): a machine client cannot get a token there',
      );
    }
    const wanted = scope ?? target.scopes?.join(' ');
    this.requested = wanted;
    const params: Record<string, string> = { grant_type: grant };
    if (this.assertion !== undefined)
      params.assertion = await this.assertion(issuer.issuer, target.resource, wanted);
    if (wanted) params.scope = wanted;
    await this.token(issuer, await this.clientAt(issuer), target, params);
  }

  /** The authorization code grant with PKCE: the person signs in through `options.authorize`. */
  private async signIn(
    options: SignInOptions,
    issuer: AuthorizationServerMetadata,
    target: Target,
    scope: string | undefined,
  ) {
    if (!issuer.code_challenge_methods_supported?.includes('S256')) {
      throw new OAuthError(
        `The authorization server ${issuer.issuer} does not offer PKCE with S256 (code_challenge_methods_supported), ` +
          'which MCP requires: not authorizing',
      );
    }
    const wanted = requestScope(scope ?? target.scopes?.join(' '), issuer);
    const client = await this.clientAt(issuer, options);
    const pkce = await createPkce();
    const nonce = randomBase64url(16);
    const url = new URL(issuer.authorization_endpoint);
    const query = url.searchParams;
    query.set('response_type', 'code');
    query.set('client_id', client.client_id);
    query.set('redirect_uri', options.redirectUri);
    query.set('code_challenge', pkce.challenge);
    query.set('code_challenge_method', 'S256');
    query.set('state', nonce);
    if (target.resource !== undefined) query.set('resource', target.resource);
    if (wanted) query.set('scope', wanted);
    this.requested = wanted;
    const back = new URL(String(await options.authorize(url)), options.redirectUri);
    // `issuer` is the one this request was sent to, whatever discovery found meanwhile.
    const code = authorizationCode(back, { state: nonce, issuer });
    await this.token(issuer, client, target, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: options.redirectUri,
      code_verifier: pkce.verifier,
    });
  }

  /**
   * Refreshes `held`, one process at a time where the store is shared (`exclusive`): the tokens another process
   * got meanwhile are taken instead, since its refresh may have used up this refresh token.
   */
  private async refreshOnce(issuer: AuthorizationServerMetadata, target: Target, held: OAuthTokens) {
    const store = this.options.store;
    if (store?.exclusive === undefined) return this.refresh(issuer, target, held.refresh_token!);
    return store.exclusive(async () => {
      const stored = (await store.load())?.tokens;
      if (stored !== undefined && stored.access_token !== held.access_token) {
        this.state = { ...this.state, tokens: stored };
        return true;
      }
      return this.refresh(issuer, target, held.refresh_token!);
    });
  }

  /** Trades the refresh token for new tokens at the server that issued it; false when it refused. */
  private async refresh(issuer: AuthorizationServerMetadata, target: Target, refreshToken: string) {
    const options = this.options;
    await this.token(issuer, await this.clientAt(issuer, 'grant' in options ? undefined : options), target, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    });
    return true;
  }

  /**
   * Who the client is at `issuer`: pre-registered (at that server only), registered there before, its CIMD
   * URL (good at any server), or registered now: client credentials are never taken from one server to
   * another (SEP-2352).
   */
  private async clientAt(
    issuer: AuthorizationServerMetadata,
    signIn?: SignInOptions,
  ): Promise<OAuthClientInformation> {
    const preRegistered = this.options.client;
    if (preRegistered !== undefined) {
      if (preRegistered.issuer === undefined) this.preRegisteredAt ??= issuer.issuer;
      const at = preRegistered.issuer ?? this.preRegisteredAt;
      if (at !== issuer.issuer) {
        throw new OAuthError(
          `The authorization server of ${this.serverUrl} is now ${issuer.issuer}, but the pre-registered client ` +
            `${preRegistered.client_id} is registered with ${at}: register the client with ${issuer.issuer} ` +
            'and give the OAuthClient those credentials',
        );
      }
      return preRegistered;
    }
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
    if (signIn === undefined) {
      throw new OAuthError(
        'A machine client needs credentials registered beforehand: give the OAuthClient `client`',
      );
    }
    const client = await registerClient(
      issuer,
      {
        redirectUri: signIn.redirectUri,
        clientName: this.options.clientName ?? 'mcpwire',
        applicationType: this.options.applicationType,
      },
      this.authorizing,
    );
    await this.update({ client });
    return client;
  }

  /** A token request with the client's authentication; keeps what it answers. */
  private async token(
    issuer: AuthorizationServerMetadata,
    client: OAuthClientInformation,
    target: Target,
    params: Record<string, string>,
  ): Promise<void> {
    const previous = (await this.current()).tokens;
    const tokens = await requestTokens(
      this.authorizing,
      issuer,
      client,
      target.resource,
      params,
      previous,
      this.clock,
      this.prover,
    );
    await this.update({ tokens });
  }

  /**
   * The prover of the tokens to get now: DPoP-bound ones when the resource takes them (its challenge or metadata says
   * so, or the tokens held are) and the authorization server issues them; else none (Bearer). A resource that takes
   * only DPoP-bound tokens from a server that issues none is not authorized.
   */
  private async proverAt(issuer: AuthorizationServerMetadata, target: Target, challenged: boolean) {
    const state = await this.current();
    const held = state.tokens?.token_type.toLowerCase() === 'dpop';
    if (!challenged && !held && target.dpop === undefined) return undefined;
    const offered = issuer.dpop_signing_alg_values_supported;
    if (this.prover !== undefined && DPoPProver.takes(offered, this.prover.key.alg)) return this.prover;
    const prover = await DPoPProver.create(offered, state.dpopKey);
    if (prover === undefined && target.dpop === 'required') {
      throw new OAuthError(
        `${this.serverUrl} takes only DPoP-bound tokens, and its authorization server ${issuer.issuer} issues none ` +
          'this client can prove (dpop_signing_alg_values_supported): not authorizing',
      );
    }
    if (prover !== undefined && prover.key !== state.dpopKey) await this.update({ dpopKey: prover.key });
    return prover;
  }

  /** The prover of `tokens` when they are DPoP-bound: this run's, or one with the key kept with them. */
  private async proverFor(tokens: OAuthTokens | undefined): Promise<DPoPProver | undefined> {
    if (tokens?.token_type.toLowerCase() !== 'dpop') return undefined;
    const kept = (await this.current()).dpopKey;
    if (this.prover === undefined && kept !== undefined) this.prover = await DPoPProver.restore(kept);
    return this.prover;
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
