import { ErrorCode, McpError } from '../jsonrpc/errors.js';

/** The four paginated lists; a cursor is only valid for the list that issued it. */
export type ListKind = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

const KIND_TAG: Record<ListKind, string> = {
  tools: 't',
  resources: 'r',
  resourceTemplates: 'T',
  prompts: 'p',
};

/**
 * Where a page starts: the registration sequence number of the first item to list (or the first
 * one registered after it, if it has gone), and for an item that lists several things (a resource
 * template's `list`) how many of those to skip. Sequence numbers only grow, so a cursor stays valid
 * across registrations and removals: nothing is listed twice, nothing still present is skipped.
 */
export interface Position {
  seq: number;
  offset: number;
}

const START: Readonly<Position> = Object.freeze({ seq: 0, offset: 0 });
const CURSOR_TEXT = /^([a-zA-Z]):(\d{1,15}):(\d{1,15})$/;

/** The opaque cursor of a position in one list. */
export function encodeCursor(kind: ListKind, seq: number, offset = 0): string {
  return Buffer.from(`${KIND_TAG[kind]}:${seq}:${offset}`).toString('base64url');
}

/** The position a cursor names (the start when there is none); -32602 for a cursor we did not issue. */
export function decodeCursor(kind: ListKind, cursor: string | undefined): Readonly<Position> {
  if (cursor === undefined) return START;
  const match = CURSOR_TEXT.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (match === null || match[1] !== KIND_TAG[kind]) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Invalid cursor: not one this server issued for the ${kind} list`,
    );
  }
  return { seq: Number(match[2]), offset: Number(match[3]) };
}

/** Index of the first entry whose `seq` is at least `seq` (entries are sorted by `seq`). */
export function firstAtOrAfter(entries: readonly { readonly seq: number }[], seq: number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid].seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One page of a list: its items and, when more follow, the cursor of the next page. */
export interface Page<T> {
  items: T[];
  nextCursor: string | undefined;
}

/**
 * The page of `items` (published objects, parallel to `entries`) that `cursor` names. The whole
 * list, when it fits one page, is returned as is: the common case allocates no array.
 */
export function pageOf<T>(
  kind: ListKind,
  entries: readonly { readonly seq: number }[],
  items: T[],
  cursor: string | undefined,
  pageSize: number,
): Page<T> {
  const start = cursor === undefined ? 0 : firstAtOrAfter(entries, decodeCursor(kind, cursor).seq);
  const end = start + pageSize;
  if (end >= items.length) return { items: start === 0 ? items : items.slice(start), nextCursor: undefined };
  return { items: items.slice(start, end), nextCursor: encodeCursor(kind, entries[end].seq) };
}
