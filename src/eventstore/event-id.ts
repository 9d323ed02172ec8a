// SSE event ids of resumable streams: `<streamId>_<index>`. The id names the stream, so a Last-Event-ID
// alone says which stream to resume (the spec asks for that), and the index is the stream's own counter, so
// ids sort by position in the stream, never by a clock.

/** A parsed event id: event `index` (0, 1, …) of stream `streamId`. */
export interface EventId {
  readonly streamId: string;
  readonly index: number;
}

/**
 * Whether `s` may be a stream id: non-empty, visible ASCII only (0x21–0x7E), because the event id travels in
 * an SSE `id:` field and comes back in a `Last-Event-ID` header. Underscores are allowed: parsing splits at
 * the last one, and an index never contains one.
 */
export function isStreamId(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

/**
 * The event id of event `index` of stream `streamId`. The caller guarantees `isStreamId(streamId)` and a
 * non-negative integer index (they come from the server itself; this runs once per event, so it checks nothing).
 */
export function formatEventId(streamId: string, index: number): string {
  return streamId + '_' + index;
}

/** Longest canonical index: Number.MAX_SAFE_INTEGER has 16 digits. */
const MAX_INDEX_DIGITS = 16;

/**
 * The stream and index an event id names, or undefined when `id` is not exactly what `formatEventId` makes:
 * `<stream id>_<index>` with a valid stream id and a canonical non-negative integer index (no sign, no leading
 * zero, at most Number.MAX_SAFE_INTEGER). Splits at the last underscore. Never throws, whatever `id` is.
 */
export function parseEventId(id: unknown): EventId | undefined {
  if (typeof id !== 'string') return undefined;
  const cut = id.lastIndexOf('_');
  const digits = id.length - cut - 1;
  if (cut <= 0 || digits === 0 || digits > MAX_INDEX_DIGITS) return undefined;
  if (digits > 1 && id.charCodeAt(cut + 1) === 0x30) return undefined;
  for (let i = cut + 1; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return undefined;
  }
  const index = Number(id.slice(cut + 1));
  const streamId = id.slice(0, cut);
  if (!Number.isSafeInteger(index) || !isStreamId(streamId)) return undefined;
  return { streamId, index };
}
