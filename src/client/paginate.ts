import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { Cursor, PaginatedResult } from '../protocol/types.js';

/**
 * Yields every item of a paginated list, fetching the next page only when the caller has
 * consumed the current one and following `nextCursor` until a page has none. A server that hands
 * out a cursor it already gave (which would loop forever) or a page without its item array ends
 * the iteration with an McpError saying so.
 */
export async function* paginate<R extends PaginatedResult, T>(
  method: string,
  key: keyof R & string,
  fetchPage: (cursor: Cursor | undefined) => Promise<R>,
): AsyncGenerator<T, void, undefined> {
  let seen: Set<Cursor> | undefined;
  let cursor: Cursor | undefined;
  do {
    const page = await fetchPage(cursor);
    const items = page[key];
    if (!Array.isArray(items)) {
      throw new McpError(ErrorCode.InvalidRequest, `The server's ${method} result has no "${key}" array`);
    }
    yield* items as T[];
    // Servers that mean "no more" with null are treated as omitting the cursor.
    cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
    if (cursor !== undefined) {
      seen ??= new Set();
      if (seen.has(cursor)) {
        throw new McpError(
          ErrorCode.InvalidRequest,
          `The server returned the ${method} cursor ${JSON.stringify(cursor)} twice; stopped paging to avoid an endless loop`,
        );
      }
      seen.add(cursor);
    }
  } while (cursor !== undefined);
}
