import type { HTTPExchange } from '../http/exchange.js';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { MessageInfo } from '../peer/connection.js';

/**
 * Who is asking, as the transport authenticated them: an OAuth token's subject and scopes, or no one (stdio,
 * in-memory, a server without OAuth). `ctx.transport` is one.
 */
export interface Caller {
  /** The token's subject; undefined for an anonymous caller. */
  readonly principal?: string;
  /** The scopes the caller's access token holds; none when undefined. */
  readonly scopes?: readonly string[];
}

/**
 * Who may see and use one registered tool, resource, template or prompt. A caller it does not admit finds the
 * entry absent from every list, and a direct use refused: for want of `scopes`, with the scopes to ask for (over
 * HTTP with OAuth, a 403 `insufficient_scope` challenge the client can step up from); for want of `allow`, as if
 * the entry did not exist.
 */
export interface Access {
  /** OAuth scopes the caller's access token must all hold. */
  readonly scopes?: readonly string[];
  /** A further rule on the caller (e.g. a list of principals); called for every list and use, so keep it cheap. */
  readonly allow?: (caller: Caller) => boolean;
}

/** Everyone who is not authenticated. */
export const ANONYMOUS: Caller = Object.freeze({});

/** The caller of a request with this transport information (a transport's info is its caller). */
export function callerOf(info: MessageInfo | undefined): Caller {
  return info ?? ANONYMOUS;
}

/** The caller of an HTTP request: the principal and scopes its authentication layer set (string principals only). */
export function exchangeCaller(exchange: HTTPExchange): Caller {
  const principal = exchange.principal;
  return { principal: typeof principal === 'string' ? principal : undefined, scopes: exchange.scopes };
}

/** What a caller lacks to use an entry: nothing, scopes (it may step up), or the entry altogether. */
export type Shortfall = undefined | { readonly scopes: readonly string[] } | 'hidden';

/** What `caller` lacks to use an entry guarded by `access` (undefined: nothing guards it). */
export function shortfall(access: Access | undefined, caller: Caller): Shortfall {
  if (access === undefined) return undefined;
  if (access.allow !== undefined && !access.allow(caller)) return 'hidden';
  const required = access.scopes;
  if (required === undefined) return undefined;
  const held = caller.scopes ?? [];
  for (const scope of required) {
    if (!held.includes(scope)) return { scopes: required.filter((s) => !held.includes(s)) };
  }
  return undefined;
}

/** True when `caller` may see and use an entry guarded by `access`. */
export function admits(access: Access | undefined, caller: Caller): boolean {
  return shortfall(access, caller) === undefined;
}

/** `access` checked once at registration: a wrong one throws, naming the entry (`label`). */
export function checkAccess(access: Access | undefined, label: string): Access | undefined {
  if (access === undefined) return undefined;
  const { scopes, allow } = access;
  if (
    scopes !== undefined &&
    (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string' || s === '' || /\s|"/.test(s)))
  ) {
    throw new Error(`${label}: access.scopes must be a list of OAuth scope names (no spaces or quotes)`);
  }
  if (allow !== undefined && typeof allow !== 'function') {
    throw new Error(`${label}: access.allow must be a function of the caller`);
  }
  return Object.freeze({ scopes: scopes && Object.freeze([...scopes]), allow });
}

/**
 * A request refused for want of OAuth scopes: -32602 with the scopes the entry needs in `data.requiredScopes`.
 * Over HTTP with OAuth the endpoint answers it before any handler runs, as a 403 `insufficient_scope` challenge.
 */
export class ScopeError extends McpError {
  constructor(
    label: string,
    key: string,
    /** Every scope the entry needs (the caller lacks some of them). */
    readonly requiredScopes: readonly string[],
    missing: readonly string[],
  ) {
    super(
      ErrorCode.InvalidParams,
      `${label} "${key}" needs the OAuth scope ${missing.map((s) => `"${s}"`).join(', ')}, which this request's access token lacks; authorize again asking for it`,
      { requiredScopes: requiredScopes },
    );
    this.name = 'ScopeError';
  }
}
