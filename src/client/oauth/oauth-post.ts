import { boundedText } from '../http/http-replies.js';
import { OAuthError } from './oauth-error.js';

/** Metadata, registrations and tokens take a few KiB: a longer answer is no answer, and is not read on. */
const OAUTH_BODY_BYTES = 1024 * 1024;

/** The JSON of an authorization server's (or a resource's) answer; undefined when it is not JSON or too long. */
export async function oauthJson(response: Response): Promise<unknown> {
  try {
    const text = await boundedText(response, OAUTH_BODY_BYTES);
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * POSTs to an authorization server endpoint and reads the JSON object it answers; `seen` is shown the answer's
 * headers first. A network failure or an error answer rejects with an OAuthError naming `what`, the URL, the HTTP
 * status and the server's `error` and `error_description` (RFC 6749 §5.2, RFC 7591 §3.2.2).
 */
export async function postForJson(
  fetchFn: typeof fetch,
  url: string,
  what: string,
  init: RequestInit,
  seen?: (headers: Headers) => void,
): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetchFn(url, { ...init, method: 'POST' });
  } catch (err) {
    throw new OAuthError(`${what} to ${url} failed: ${(err as Error).message}`, undefined, { cause: err });
  }
  seen?.(response.headers);
  const body = await oauthJson(response);
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
