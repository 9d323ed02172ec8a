import type { RequestId } from '../../../jsonrpc/types.js';
import { acceptsBatches } from '../../../protocol/versions.js';
import type { PostBody } from './session-transport.js';

/** Why a POST is refused (400, -32600), and the id to answer with when one request is to blame. */
export interface RefusedPost {
  readonly refused: string;
  readonly id?: RequestId;
}

/**
 * The checks a session makes of a POST before it delivers anything (a refused POST delivers nothing): a batch
 * only in 2025-03-26, and no request id already in flight in the session (`conn.owes`) or twice in the batch.
 * Answers how many of its messages are requests, or why it is refused (a number, not an object: this runs per POST).
 */
export function checkPost(
  body: PostBody,
  version: string | undefined,
  conn: { owes(id: RequestId): boolean },
): number | RefusedPost {
  if (body.kind === 'batch' && (version === undefined || !acceptsBatches(version))) {
    return {
      refused: `Invalid request: JSON-RPC batches are not accepted ${
        version === undefined ? 'before initialization' : `in protocol version ${version}`
      } (only 2025-03-26 accepts them); send one message per POST`,
    };
  }
  let requests = 0;
  let duplicate: RequestId | undefined;
  if (body.kind === 'message') {
    const m = body.message;
    if ('method' in m && 'id' in m) {
      requests = 1;
      if (conn.owes(m.id)) duplicate = m.id;
    }
  } else {
    const seen = new Set<RequestId>();
    for (const m of body.messages) {
      if (!('method' in m && 'id' in m)) continue;
      requests++;
      if (seen.has(m.id) || conn.owes(m.id)) duplicate = m.id;
      seen.add(m.id);
    }
  }
  if (duplicate !== undefined) {
    return {
      refused:
        `Invalid request: id ${JSON.stringify(duplicate)} is already used by a request in flight in this session; ` +
        'give each request a unique id',
      id: duplicate,
    };
  }
  return requests;
}
