import { type Clock, systemClock } from '../util/clock.js';
import { basicCredentials } from './basic-credentials.js';
import type { TokenGrant, TokenVerifier } from './protected-resource.js';

export interface IntrospectionOptions {
  /** The authorization server's token introspection endpoint (RFC 7662). */
  endpoint: string;
  /** This server's credentials at the authorization server, sent with HTTP Basic (client_secret_basic). */
  clientId: string;
  clientSecret: string;
  /** This server's canonical URL: a token whose `aud` does not name it was issued for another server. */
  resource: string;
  /** How long an answer is reused for the same token, at most until the token expires. Default 30 s; 0: never. */
  cacheMs?: number;
  /** Answers kept at most; the oldest goes first. Default 10,000. */
  maxCached?: number;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  clock?: Pick<Clock, 'now'>;
}

const DEFAULT_CACHE_MS = 30_000;
const DEFAULT_MAX_CACHED = 10_000;

/**
 * A TokenVerifier that asks the authorization server about each token (RFC 7662): it grants a token that is
 * `active`, unexpired, whose `aud` names `resource` (a token without an audience is refused: it cannot be
 * shown to be for this server), and that names whom it stands for (`sub`, else `username`, else
 * `client_id`); its `scope` gives the scopes. Answers, refusals included, are reused for `cacheMs` so that a
 * session's requests cost one introspection, never past the token's expiry. An endpoint that cannot be
 * reached or answers an error rejects, so that the request gets 503 rather than 401.
 */
export function introspectionVerifier(options: IntrospectionOptions): TokenVerifier {
  const send = options.fetch ?? globalThis.fetch;
  const clock = options.clock ?? systemClock;
  const cacheMs = options.cacheMs ?? DEFAULT_CACHE_MS;
  const maxCached = options.maxCached ?? DEFAULT_MAX_CACHED;
  const audience = options.resource.replace(/\/$/, '');
  const credentials = basicCredentials(options.clientId, options.clientSecret);
  const cache = new Map<string, { grant: TokenGrant | undefined; until: number }>();

  async function introspect(token: string): Promise<{ grant: TokenGrant | undefined; expiresAt: number }> {
    const response = await send(options.endpoint, {
      method: 'POST',
      headers: {
        authorization: credentials,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`the introspection endpoint answered HTTP ${response.status}`);
    }
    const answer = (await response.json()) as Record<string, unknown>;
    const expiresAt = typeof answer.exp === 'number' ? answer.exp * 1000 : Number.POSITIVE_INFINITY;
    const aud = answer.aud;
    const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
    const principal = [answer.sub, answer.username, answer.client_id].find((v) => typeof v === 'string');
    const valid =
      answer.active === true &&
      expiresAt > clock.now() &&
      audiences.some((a) => typeof a === 'string' && a.replace(/\/$/, '') === audience) &&
      principal !== undefined;
    if (!valid) return { grant: undefined, expiresAt };
    const scopes = typeof answer.scope === 'string' ? answer.scope.split(' ').filter(Boolean) : [];
    return { grant: { principal: principal as string, scopes }, expiresAt };
  }

  return {
    async verify(token) {
      const now = clock.now();
      const kept = cache.get(token);
      if (kept !== undefined && kept.until > now) return kept.grant;
      const { grant, expiresAt } = await introspect(token);
      if (cacheMs > 0) {
        cache.delete(token);
        if (cache.size >= maxCached) cache.delete(cache.keys().next().value!);
        cache.set(token, { grant, until: Math.min(now + cacheMs, expiresAt) });
      }
      return grant;
    },
  };
}
