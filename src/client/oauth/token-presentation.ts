import type { DPoPProver } from './dpop.js';
import type { OAuthTokens } from './oauth-state.js';
import { parseChallenge } from './www-authenticate.js';

/**
 * Sends a request of the MCP server's with the access token of `tokens`: as a Bearer token (RFC 6750 §2.1), or as a
 * DPoP-bound one with a new proof of `prover`'s key (RFC 9449 §7.1), sent once more when the server answers that it
 * wants a nonce it gives (§9). Without a token when none is held, or when a DPoP-bound one has no key here.
 * `request` makes the request anew for each send.
 */
export async function sendWithToken(
  send: typeof fetch,
  request: () => string | URL | Request,
  init: RequestInit | undefined,
  tokens: OAuthTokens | undefined,
  prover: DPoPProver | undefined,
): Promise<Response> {
  if (tokens === undefined) return send(request(), init);
  const token = tokens.access_token;
  if (tokens.token_type.toLowerCase() !== 'dpop')
    return send(request(), withHeaders(init, { authorization: `Bearer ${token}` }));
  if (prover === undefined) return send(request(), init);
  const first = request();
  const url = first instanceof Request ? first.url : first;
  const method = init?.method ?? (first instanceof Request ? first.method : 'GET');
  for (let attempt = 1; ; attempt++) {
    const input = attempt === 1 ? first : request();
    const proof = await prover.proof(method, url, token);
    const response = await send(input, withHeaders(init, { authorization: `DPoP ${token}`, dpop: proof }));
    const newNonce = prover.noteNonce(url, response.headers);
    if (
      attempt > 1 ||
      response.status !== 401 ||
      !newNonce ||
      parseChallenge(response.headers.get('www-authenticate'))?.error !== 'use_dpop_nonce'
    ) {
      return response;
    }
    await response.body?.cancel();
  }
}

function withHeaders(init: RequestInit | undefined, added: Record<string, string>): RequestInit {
  const headers = new Headers(init?.headers);
  for (const [name, value] of Object.entries(added)) headers.set(name, value);
  return { ...init, headers };
}
