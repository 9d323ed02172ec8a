/** One Server-Sent Event. */
export interface SSEEvent {
  /** Becomes the client's Last-Event-ID; must not contain CR, LF or NUL. */
  id?: string;
  /** The event type (`message` when absent); must not contain CR or LF. */
  event?: string;
  /** The payload; line breaks of any kind (CRLF, CR, LF) become separate `data:` lines. */
  data: string;
  /** Reconnection delay in milliseconds for the client, a non-negative integer. */
  retry?: number;
}

// A line break in id or event would start a field of the attacker's choosing; a NUL makes clients
// ignore the id.
const UNSAFE_FIELD = /[\r\n\0]/;
const LINE_BREAK = /\r\n|\r|\n/;

/**
 * The event as one wire string (ending in the blank line that dispatches it), so it can be written with
 * one call and stored as is. Throws a TypeError for an id or event type that could inject fields.
 */
export function formatSseEvent(e: SSEEvent): string {
  let frame = '';
  if (e.id !== undefined) frame += `id: ${safeField('id', e.id)}\n`;
  if (e.event !== undefined) frame += `event: ${safeField('event', e.event)}\n`;
  if (e.retry !== undefined) frame += formatRetry(e.retry);
  const data = e.data;
  // The common case is serialized JSON, which never holds a raw line break.
  if (data.indexOf('\n') === -1 && data.indexOf('\r') === -1) return `${frame}data: ${data}\n\n`;
  for (const line of data.split(LINE_BREAK)) frame += `data: ${line}\n`;
  return `${frame}\n`;
}

/** The `retry:` line; alone followed by a blank line it sets the delay without dispatching an event. */
export function formatRetry(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0)
    throw new TypeError(`SSE retry must be a non-negative integer, got ${ms}`);
  return `retry: ${ms}\n`;
}

function safeField(name: string, value: string): string {
  if (UNSAFE_FIELD.test(value)) {
    throw new TypeError(`SSE ${name} must not contain CR, LF or NUL: ${JSON.stringify(value)}`);
  }
  return value;
}
