import { isObject } from '../jsonrpc/parse.js';
import { type Clock, systemClock } from '../util/clock.js';
import { basicCredentials } from './basic-credentials.js';
import { isSecureEndpoint } from './guards.js';
import { type TokenGrant, type TokenVerifier, withBinding } from './protected-resource.js';

export interface IntrospectionOptions {
  /** The authorization server's token introspection endpoint (RFC 7662): https, or http on loopback only. */
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
  /** How long the endpoint may take to answer, in ms; past it the request gets 503. Default 5,000. */
  timeoutMs?: number;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  clock?: Pick<Clock, 'now'>;
}

const DEFAULT_CACHE_MS = 30_000;
const DEFAULT_MAX_CACHED = 10_000;
/** As long as jose gives a JWKS fetch (`jwtVerifier`): a request waits no longer on an authorization server. */
const DEFAULT_TIMEOUT_MS = 5_000;

/**
 * A TokenVerifier that asks the authorization server about each token (RFC 7662): it grants a token that is
 * `active`, unexpired, whose `aud` names `resource` (a token without an audience is refused: it cannot be
 * shown to be for this server), and that names whom it stands for (`sub`, else `username`, else
 * `client_id`); its `scope` gives the scopes. Answers, refusals included, are reused for `cacheMs` so that a
 * session's requests cost one introspection, never past the token's expiry; requests that come with a token
 * while it is being introspected wait for that answer. An endpoint that cannot be reached, answers an error or
 * something that is not a JSON object, or takes longer than `timeoutMs`, rejects, so that the request gets 503
 * rather than 401.
 */
export function introspectionVerifier(options: IntrospectionOptions): TokenVerifier {
  if (!isSecureEndpoint(new URL(options.endpoint))) {
    throw new Error(
      `introspectionVerifier: the endpoint ${options.endpoint} is not https: this server's credentials and every ` +
        'token it checks would cross the network in the clear (plain http only on loopback)',
    );
  }
  const send = options.fetch ?? globalThis.fetch;
  const clock = options.clock ?? systemClock;
  const cacheMs = options.cacheMs ?? DEFAULT_CACHE_MS;
  const maxCached = options.maxCached ?? DEFAULT_MAX_CACHED;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const audience = options.resource.replace(/\/$/, '');
  const credentials = basicCredentials(options.clientId, options.clientSecret);
  const cache = new Map<string, { grant: TokenGrant | undefined; until: number }>();
  /** Introspections under way, by token. */
  const asking = new Map<string, Promise<TokenGrant | undefined>>();

  /** The endpoint's answer about `token`: a JSON object, read within `timeoutMs`. */
  async function ask(token: string): Promise<Record<string, unknown>> {
    const signal = AbortSignal.timeout(timeoutMs);
    let answer: unknown;
    try {
      const response = await send(options.endpoint, {
        method: 'POST',
        headers: {
          authorization: credentials,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
        signal,
      });
      if (!response.ok) {
        await response.body?.cancel();
        throw new Error(`the introspection endpoint answered HTTP ${response.status}`);
      }
      answer = await response.json();
    } catch (err) {
      if (!signal.aborted) throw err;
      throw new Error(`the introspection endpoint did not answer within ${timeoutMs} ms`, { cause: err });
    }
    if (!isObject(answer))
      throw new Error('the introspection endpoint answered something that is not a JSON object');
    return answer;
  }

  async function introspect(token: string): Promise<{ grant: TokenGrant | undefined; expiresAt: number }> {
    const answer = await ask(token);
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
    return { grant: withBinding({ principal: principal as string, scopes }, answer.cnf), expiresAt };
  }

  return {
    verify(token) {
      const now = clock.now();
      const kept = cache.get(token);
      if (kept !== undefined && kept.until > now) return kept.grant;
      let pending = asking.get(token);
      if (pending === undefined) {
        pending = introspect(token)
          .then(({ grant, expiresAt }) => {
            if (cacheMs > 0) {
              cache.delete(token);
              if (cache.size >= maxCached) cache.delete(cache.keys().next().value!);
              cache.set(token, { grant, until: Math.min(now + cacheMs, expiresAt) });
            }
            return grant;
          })
          .finally(() => asking.delete(token));
        asking.set(token, pending);
      }
      return pending;
    },
  };
}
