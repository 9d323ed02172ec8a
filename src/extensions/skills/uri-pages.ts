import { ErrorCode, McpError } from '../../jsonrpc/errors.js';

/** One page of a list sorted by URI, and the cursor of the next when more follow. */
export interface UriPage<T> {
  items: T[];
  nextCursor?: string;
}

const TAG = 'u:';

/**
 * The page of `items` (sorted by `uri`) that `cursor` names: the cursor holds the URI the page starts at, so it
 * stays good when the list changes in between (nothing still present is listed twice or skipped). -32602 for a
 * cursor this server did not issue.
 */
export function uriPage<T extends { uri: string }>(
  items: readonly T[],
  cursor: unknown,
  pageSize: number,
): UriPage<T> {
  let start = 0;
  if (cursor !== undefined) {
    const text = typeof cursor === 'string' ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
    if (!text.startsWith(TAG))
      throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor: not one this server issued');
    const from = text.slice(TAG.length);
    start = items.findIndex((item) => item.uri >= from);
    if (start === -1) start = items.length;
  }
  const end = start + pageSize;
  if (end >= items.length) return { items: items.slice(start) };
  return {
    items: items.slice(start, end),
    nextCursor: Buffer.from(TAG + items[end]!.uri).toString('base64url'),
  };
}
