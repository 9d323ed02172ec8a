import type { HTTPExchange } from './exchange.js';
import type { Refuse } from './intake.js';

/** `Authorization: Bearer <token>` (RFC 6750 §2.1): the scheme in any case, the token a b64token. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The token of an `Authorization: Bearer …` header; undefined when there is no header or it is not one. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return BEARER.exec(header)?.[1];
}

/** `Authorization: DPoP <token>` (RFC 9449 §7.1): a DPoP-bound token, presented with a proof. */
const DPOP = /^DPoP +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The token of an `Authorization: DPoP …` header; undefined when there is no header or it is not one. */
export function dpopToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return DPOP.exec(header)?.[1];
}

/** Whether `token` could be sent in an `Authorization: Bearer` header (a b64token, RFC 6750 §2.1). */
export function isBearerToken(token: string): boolean {
  return bearerToken(`Bearer ${token}`) === token;
}

/**
 * Who may use an HTTP endpoint: give one to `StreamableHTTPHandler` or `LegacySSEHandler` (`auth`). Every request
 * passes through `admit` before anything else of it is read, so that a refused one costs the server nothing more.
 * `ProtectedResource` is the one the MCP authorization spec describes (OAuth 2.1); `BearerTokens` takes a few
 * tokens shared with the clients out of band.
 */
export interface EndpointAuth {
  /**
   * Sets the request's `principal` and `scopes` and returns (or resolves) true; or answers it through `refuse`
   * (401, 403 or 503, with its `WWW-Authenticate` challenge) and returns (or resolves) false. Never rejects.
   */
  admit(exchange: HTTPExchange, refuse: Refuse): boolean | Promise<boolean>;
  /**
   * The `WWW-Authenticate` challenge of a 403 for a request whose token holds the scopes `granted` where `required`
   * are needed (a tool, resource or prompt that names scopes).
   */
  scopeChallenge(granted: readonly string[] | undefined, required: readonly string[]): string;
}

/**
 * The challenge of a 403 for a token that holds `granted` where `required` is needed: the scopes to ask for are
 * both (2025-11-25, authorization, scope challenge: the client keeps what it has).
 */
export function insufficientScope(
  granted: readonly string[] | undefined,
  required: readonly string[],
): string {
  return `Bearer error="insufficient_scope", scope="${[...new Set([...(granted ?? []), ...required])].join(' ')}"`;
}
