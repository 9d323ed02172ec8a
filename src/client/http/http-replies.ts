/*
 * Small pieces the HTTP clients (the legacy Streamable HTTP session, the modern per-request one, and the
 * 2024-11-05 HTTP+SSE one) need to talk HTTP to a server and to say what went wrong in words a person can act on.
 */

const noop = () => {};

/**
 * The longest SSE event, and JSON answer, an HTTP client reads by default (`maxEventChars`): what a stdio line may
 * be. A server sending more is cut off rather than let it grow this process without bound.
 */
export const DEFAULT_MAX_EVENT_CHARS = 16 * 1024 * 1024;

/** Header names are case-insensitive: one spelling, so that ours replace the caller's instead of joining them. */
export function lowerCased(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers !== undefined) for (const name in headers) out[name.toLowerCase()] = headers[name];
  return out;
}

/** Frees the connection of a response whose body nobody reads. */
export function discard(response: Response): void {
  response.body?.cancel().catch(noop);
}

/** A JSON answer's body whole, or undefined once it passes `maxBytes` (the rest is not read). */
export async function boundedText(response: Response, maxBytes: number): Promise<string | undefined> {
  const body = response.body;
  if (body === null) return '';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      bytes += value.length;
      if (bytes > maxBytes) {
        reader.cancel().catch(noop);
        return undefined;
      }
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
}

/** A POST's JSON answer read whole, or why it could not be: the connection dropped, or it passed `maxEventChars`. */
export async function jsonAnswer(
  response: Response,
  maxEventChars: number,
): Promise<{ text: string } | { problem: string }> {
  try {
    const text = await boundedText(response, maxEventChars);
    return text === undefined ? { problem: tooLongAnswer('the JSON answer', maxEventChars) } : { text };
  } catch (err) {
    return { problem: `the connection dropped while the JSON answer was read: ${reason(err)}` };
  }
}

/** How much of an answer nobody reads is read anyway, so that its connection can be reused. */
const DRAIN_BYTES = 64 * 1024;

/**
 * Reads a body nobody needs to its end without keeping it, so that its connection can be reused; past
 * `DRAIN_BYTES` it is cancelled instead, so that a server sending on and on holds up nothing behind it.
 */
export async function drain(response: Response): Promise<void> {
  const body = response.body;
  if (body === null) return;
  const reader = body.getReader();
  try {
    for (let read = 0; read <= DRAIN_BYTES; ) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
    reader.cancel().catch(noop);
  } finally {
    reader.releaseLock();
  }
}

/** Why a request fails whose answer was longer than the client reads. */
export function tooLongAnswer(what: string, maxEventChars: number): string {
  return `${what} is longer than this client reads (maxEventChars: ${maxEventChars})`;
}

const EXCERPT_CHARS = 1000;

/** The start of an error body, read no further than needed. */
export async function excerpt(response: Response): Promise<string> {
  const body = response.body;
  if (body === null) return '';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length <= EXCERPT_CHARS) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      text += decoder.decode(value, { stream: true });
    }
    reader.cancel().catch(noop);
    return `${text.slice(0, EXCERPT_CHARS)}…`;
  } catch {
    return text;
  }
}

/** What the server said in an error body: its JSON-RPC error message when it sent one, else the text. */
export function serverMessage(body: string): string {
  try {
    const message = JSON.parse(body)?.error?.message;
    if (typeof message === 'string') return message;
  } catch {
    // not JSON: the text itself says it
  }
  // An error page's lines and indentation make one line of a message.
  const flat = body.replace(/\s+/g, ' ').trim();
  return flat === '' ? '(empty body)' : flat;
}

export function reason(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  // fetch reports network failures as "fetch failed" with the useful part in `cause`; an error that tells its
  // cause already (an OAuthError's) is not told it twice.
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof Error && !err.message.includes(cause.message)
    ? `${err.message}: ${cause.message}`
    : err.message;
}

/**
 * True when fetch failed because nothing listens at the address any more: every connection attempt was refused
 * (node reports ECONNREFUSED in the cause, one error per address tried in an AggregateError). Browsers do not
 * tell why a fetch failed: there it is never known.
 */
export function refused(err: unknown): boolean {
  const cause = (err as { cause?: { code?: unknown; errors?: unknown } } | undefined)?.cause;
  if (cause === undefined || cause === null) return false;
  if (cause.code === 'ECONNREFUSED') return true;
  const tried = cause.errors;
  return (
    Array.isArray(tried) &&
    tried.length > 0 &&
    tried.every((e) => (e as { code?: unknown } | null)?.code === 'ECONNREFUSED')
  );
}
