import { OAuthError } from './oauth-error.js';

/**
 * POSTs to an authorization server endpoint and reads the JSON object it answers. A network failure or an
 * error answer rejects with an OAuthError naming `what`, the URL, the HTTP status and the server's `error`
 * and `error_description` (RFC 6749 §5.2, RFC 7591 §3.2.2).
 */
export async function postForJson(
  fetchFn: typeof fetch,
  url: string,
  what: string,
  init: RequestInit,
): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetchFn(url, { ...init, method: 'POST' });
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
