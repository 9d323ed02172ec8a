import { createHash } from 'node:crypto';
import { bearerToken, type EndpointAuth, insufficientScope, isBearerToken } from './endpoint-auth.js';
import type { HTTPExchange } from './exchange.js';
import type { Refuse } from './intake.js';
import type { TokenGrant } from './protected-resource.js';

/** Shorter than this, a token could be guessed by trying. */
const MIN_TOKEN_CHARS = 32;

/** One token an endpoint takes, and what it grants. */
export interface BearerToken {
  /** The secret the client sends (`Authorization: Bearer <token>`): 32 characters or more of a b64token. */
  token: string;
  /**
   * Whom it stands for: sessions are bound to it, and handlers see it as `ctx.transport.principal`. Default:
   * `token:` and the first 12 hex digits of the token's SHA-256, which names it in logs without giving it away.
   */
  principal?: string;
  /** What it may use of the tools, resources and prompts that name scopes. Default none. */
  scopes?: readonly string[];
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * An endpoint that takes a few bearer tokens given to its clients out of band (an API key each), for a server
 * with no authorization server in front of it. Not OAuth: a client is not told where to get a token, only that
 * it needs one (401 with a plain `Bearer` challenge), and a token is valid until it is taken out of the list.
 *
 * Promises: a request is let in only with one of the tokens, as that token's principal with its scopes; the
 * token sent is compared by its SHA-256, so how long the comparison takes tells nothing of the tokens; a token
 * too short to be safe, or one no header could carry, is refused at construction.
 */
export class BearerTokens implements EndpointAuth {
  /** The grants, by the SHA-256 of their token. */
  private readonly grants = new Map<string, TokenGrant>();

  constructor(tokens: Iterable<string | BearerToken>) {
    for (const given of tokens) {
      const { token, principal, scopes } = typeof given === 'string' ? { token: given } : given;
      if (token.length < MIN_TOKEN_CHARS || !isBearerToken(token)) {
        throw new Error(
          `BearerTokens: a token must be ${MIN_TOKEN_CHARS} characters or more of letters, digits and -._~+/ ` +
            `(then = signs); \`openssl rand -hex 32\` makes one`,
        );
      }
      if (principal === '') throw new Error('BearerTokens: a principal must not be empty');
      const key = digest(token);
      if (this.grants.has(key)) throw new Error('BearerTokens: a token is given twice');
      this.grants.set(key, { principal: principal ?? `token:${key.slice(0, 12)}`, scopes: scopes ?? [] });
    }
    if (this.grants.size === 0) throw new Error('BearerTokens: give at least one token');
  }

  /** The grant of `token`, if it is one of the tokens. */
  grantOf(token: string): TokenGrant | undefined {
    return this.grants.get(digest(token));
  }

  admit(exchange: HTTPExchange, refuse: Refuse): boolean {
    const header = exchange.header('authorization');
    const token = bearerToken(header);
    const grant = token === undefined ? undefined : this.grantOf(token);
    if (grant !== undefined) {
      exchange.principal = grant.principal;
      exchange.scopes = grant.scopes;
      return true;
    }
    const [challenge, message] =
      header === undefined
        ? [
            'Bearer',
            'Unauthorized: this server needs an access token (Authorization: Bearer …) from its operator',
          ]
        : token === undefined
          ? ['Bearer', 'Unauthorized: the Authorization header must be "Bearer" and an access token']
          : [
              'Bearer error="invalid_token", error_description="The access token is not one this server takes"',
              'Unauthorized: the access token is not one this server takes; ask its operator for one',
            ];
    refuse(exchange, 401, message, { headers: { 'www-authenticate': challenge } });
    return false;
  }

  scopeChallenge(granted: readonly string[] | undefined, required: readonly string[]): string {
    return insufficientScope(granted, required);
  }
}
