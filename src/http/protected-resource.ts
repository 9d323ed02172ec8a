import type { IncomingMessage, ServerResponse } from 'node:http';
import { DPOP_ALGORITHMS, DPoPProofs, type ProvenKey } from './dpop-proofs.js';
import { bearerToken, dpopToken, type EndpointAuth, insufficientScope } from './endpoint-auth.js';
import type { HTTPExchange } from './exchange.js';
import type { Refuse } from './intake.js';
import { writeJsonError } from './json-error.js';
import { fromNode } from './node-adapter.js';
import { fromWeb } from './web-adapter.js';

/** What a valid access token grants: who it was issued to, and its scopes. */
export interface TokenGrant {
  /** Whoever the token stands for: sessions are bound to it, and handlers see it as `ctx.transport.principal`. */
  principal: string;
  scopes: readonly string[];
  /**
   * The thumbprint (RFC 7638) of the key the token is bound to (its `cnf.jkt`, RFC 9449 §6), if it is: it is then
   * good only presented as DPoP, with a proof of that key.
   */
  jkt?: string;
}

/** `grant`, bound to the key that a token's confirmation claim (`cnf`, RFC 7800) names by thumbprint (RFC 9449 §6). */
export function withBinding(grant: TokenGrant, cnf: unknown): TokenGrant {
  const jkt = typeof cnf === 'object' && cnf !== null ? (cnf as { jkt?: unknown }).jkt : undefined;
  return typeof jkt === 'string' ? { ...grant, jkt } : grant;
}

/**
 * Checks the access tokens of an MCP server (spec: authorization, "Token Handling"): it must answer a grant
 * only for a token issued for this server (its audience or `resource` is this server), unexpired and not
 * revoked, and undefined for any other. It may look tokens up remotely (RFC 7662 introspection,
 * `introspectionVerifier`) or verify them locally (a JWT and the issuer's keys). It rejects only when it
 * cannot tell (the authorization server is unreachable): the request then gets 503, not 401.
 */
export interface TokenVerifier {
  verify(token: string): TokenGrant | undefined | Promise<TokenGrant | undefined>;
}

export interface ProtectedResourceOptions {
  /** This server's canonical URL, e.g. `https://mcp.example.com/mcp`: the audience of its tokens. */
  resource: string;
  /** The issuers of the authorization servers whose tokens it takes. */
  authorizationServers: readonly string[];
  verifier: TokenVerifier;
  /** Scopes every request's token must have; asked for in the challenge. Default none. */
  requiredScopes?: readonly string[];
  /** Scopes published in the metadata, for clients to ask for. Default: `requiredScopes`. */
  scopesSupported?: readonly string[];
  /**
   * DPoP-bound tokens (RFC 9449): 'accept' takes them beside Bearer ones, 'require' takes only them. Published in
   * the metadata and the challenges. Without it, a bound token is refused all the same: it is no Bearer token.
   */
  dpop?: 'accept' | 'require';
}

/**
 * A request the resource refuses: the status, the challenge for `WWW-Authenticate` (none when the token
 * could not be checked), and why, for a person.
 */
export interface Refusal {
  status: 401 | 403 | 503;
  challenge: string | undefined;
  message: string;
}

/**
 * An MCP server as an OAuth 2.1 protected resource (spec: basic/authorization; RFC 9728, RFC 6750): give it
 * to `StreamableHTTPHandler` (`auth`), and serve its metadata at `metadataPath` (`node()` / `fetch()`).
 *
 * Promises: a request without a Bearer token, or with one the verifier does not grant, gets 401 with a
 * challenge that names the metadata URL (and the required scopes); one whose grant lacks a required scope
 * gets 403 `insufficient_scope` naming them; one whose token the verifier could not check gets 503; all with a
 * JSON-RPC error body. A granted request's principal
 * is the grant's. Tokens are read from the Authorization header only, never from the URL. A token bound to a key
 * (the grant's `jkt`) is taken only as DPoP, with a proof of that key for the request (`DPoPProofs`), and a DPoP
 * token only when it is bound to the proof's key.
 */
export class ProtectedResource implements EndpointAuth {
  /** Where the metadata is served: `/.well-known/oauth-protected-resource` followed by the resource's path. */
  readonly metadataPath: string;
  /** The metadata URL clients are sent to. */
  readonly metadataUrl: string;
  /** The metadata document, serialized once. */
  private readonly document: string;
  private readonly required: readonly string[];
  private readonly scopeParam: string;
  /** Checks DPoP proofs, where DPoP-bound tokens are taken. */
  private readonly proofs: DPoPProofs | undefined;

  constructor(private readonly options: ProtectedResourceOptions) {
    const resource = new URL(options.resource);
    if (resource.hash !== '') throw new Error(`The resource ${options.resource} must not have a fragment`);
    if (options.authorizationServers.length === 0) {
      throw new Error('A protected resource needs at least one authorization server');
    }
    const path = resource.pathname === '/' ? '' : resource.pathname.replace(/\/$/, '');
    this.metadataPath = `/.well-known/oauth-protected-resource${path}`;
    this.metadataUrl = new URL(this.metadataPath, resource).href;
    this.required = options.requiredScopes ?? [];
    const supported = options.scopesSupported ?? options.requiredScopes;
    this.document = JSON.stringify({
      resource: options.resource,
      authorization_servers: options.authorizationServers,
      ...(supported !== undefined && supported.length > 0 && { scopes_supported: supported }),
      bearer_methods_supported: ['header'],
      ...(options.dpop !== undefined && { dpop_signing_alg_values_supported: DPOP_ALGORITHMS }),
      ...(options.dpop === 'require' && { dpop_bound_access_tokens_required: true }),
    });
    if (options.dpop !== undefined) this.proofs = new DPoPProofs();
    this.scopeParam = this.required.length > 0 ? `, scope="${this.required.join(' ')}"` : '';
  }

  /** The grant of the request's token, or why it is refused. */
  async check(exchange: HTTPExchange): Promise<TokenGrant | Refusal> {
    const header = exchange.header('authorization');
    const bearer = this.options.dpop === 'require' ? undefined : bearerToken(header);
    const bound = this.proofs === undefined ? undefined : dpopToken(header);
    const token = bearer ?? bound;
    if (token === undefined) {
      const how = this.options.dpop === 'require' ? 'DPoP' : 'Bearer';
      return {
        status: 401,
        challenge: this.challenges(`resource_metadata="${this.metadataUrl}"${this.scopeParam}`),
        message:
          header === undefined
            ? `Unauthorized: this server needs an OAuth access token (Authorization: ${how} …); its metadata is at ${this.metadataUrl}`
            : bearerToken(header) !== undefined
              ? 'Unauthorized: this server takes only DPoP-bound tokens: present one as Authorization: DPoP …, with a DPoP proof'
              : `Unauthorized: the Authorization header must be ${this.schemes} and an access token`,
      };
    }
    let proven: ProvenKey | undefined;
    if (bound !== undefined) {
      const url = this.options.resource;
      const proof = await this.proofs!.check(exchange.header('dpop'), {
        method: exchange.method,
        url,
        accessToken: bound,
      });
      if ('problem' in proof)
        return this.invalid(
          'invalid_dpop_proof',
          'The DPoP proof does not hold',
          `the DPoP proof does not hold: ${proof.problem}`,
        );
      proven = proof;
    }
    let grant: TokenGrant | undefined;
    try {
      grant = await this.options.verifier.verify(token);
    } catch (err) {
      return {
        status: 503,
        challenge: undefined,
        message: `Service Unavailable: the access token could not be checked (${(err as Error)?.message ?? err}); retry later`,
      };
    }
    if (grant === undefined) {
      return this.invalid(
        'invalid_token',
        'The access token is not valid for this server',
        'the access token is not valid for this server (unknown, expired or for another); obtain a new one',
      );
    }
    // A bound token without its key's proof is a stolen one as far as anyone can tell (RFC 9449 §7.2).
    if (grant.jkt !== proven?.jkt) {
      if (grant.jkt === undefined) {
        const why = 'the access token is not bound to a key: present it as Authorization: Bearer';
        return this.invalid('invalid_token', 'The access token is not bound to the key of the proof', why);
      }
      const why =
        'the access token is bound to a key: present it as Authorization: DPoP, with a proof of that key';
      const description =
        proven === undefined
          ? 'The access token is bound to a key'
          : 'The access token is bound to another key';
      return this.invalid('invalid_token', description, why);
    }
    const missing = this.required.filter((scope) => !grant.scopes.includes(scope));
    if (missing.length > 0) {
      const challenge = this.scopeChallenge(grant.scopes, this.required);
      return {
        status: 403,
        challenge,
        message: `Forbidden: the access token lacks the scope ${missing.join(', ')}; authorize again asking for "${[...new Set([...grant.scopes, ...this.required])].join(' ')}"`,
      };
    }
    return grant;
  }

  /** A 401 for a token (or its proof) that does not hold: the error and its description for the client, `why` for a person. */
  private invalid(error: string, description: string, why: string): Refusal {
    return {
      status: 401,
      challenge: this.challenges(
        `error="${error}", error_description="${description}", resource_metadata="${this.metadataUrl}"${this.scopeParam}`,
      ),
      message: `Unauthorized: ${why}`,
    };
  }

  /** The challenges of a 401 with `params`: Bearer unless only DPoP is taken, and DPoP with its algorithms where taken. */
  private challenges(params: string): string {
    const bearer = this.options.dpop === 'require' ? [] : [`Bearer ${params}`];
    const dpop =
      this.options.dpop === undefined ? [] : [`DPoP algs="${DPOP_ALGORITHMS.join(' ')}", ${params}`];
    return [...bearer, ...dpop].join(', ');
  }

  /** The schemes taken, for a person. */
  private get schemes(): string {
    return { accept: '"Bearer" or "DPoP"', require: '"DPoP"', none: '"Bearer"' }[this.options.dpop ?? 'none'];
  }

  /** With the metadata URL: the client asks the authorization server it names for the scopes. */
  scopeChallenge(granted: readonly string[] | undefined, required: readonly string[]): string {
    return `${insufficientScope(granted, required)}, resource_metadata="${this.metadataUrl}"`;
  }

  /**
   * Lets the request in as its grant's principal and resolves true; or answers it with `refuse` (the
   * transport's own way to refuse, which reports it) and the challenge, and resolves false.
   */
  async admit(exchange: HTTPExchange, refuse: Refuse): Promise<boolean> {
    const checked = await this.check(exchange);
    if ('status' in checked) {
      const challenge = checked.challenge;
      refuse(exchange, checked.status, checked.message, {
        headers: challenge === undefined ? { 'retry-after': '5' } : { 'www-authenticate': challenge },
      });
      return false;
    }
    exchange.principal = checked.principal;
    exchange.scopes = checked.scopes;
    return true;
  }

  /** Serves the metadata document (GET; any origin may read it) for node:http, at `metadataPath`. */
  node(): (req: IncomingMessage, res: ServerResponse) => void {
    return (req, res) => this.serveMetadata(fromNode(req, res));
  }

  /** The same for web-standard runtimes. */
  fetch(request: Request): Promise<Response> {
    const { exchange, response } = fromWeb(request);
    this.serveMetadata(exchange);
    return response;
  }

  private serveMetadata(exchange: HTTPExchange): void {
    if (exchange.method !== 'GET' && exchange.method !== 'HEAD') {
      writeJsonError(exchange, 405, 'Method Not Allowed: the metadata is read with GET', {
        headers: { allow: 'GET, HEAD' },
      });
      return;
    }
    exchange.writeHead(200, {
      'content-type': 'application/json',
      'access-control-allow-origin': '*',
      'cache-control': 'max-age=3600',
    });
    exchange.end(exchange.method === 'HEAD' ? undefined : this.document);
  }
}
