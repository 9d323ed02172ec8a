import { createHash } from 'node:crypto';

/**
 * How a session is named outside the process that serves it: the first 128 bits of SHA-256 of its id, base64url.
 * A session id is a credential; Redis keys and messages of a cluster, spans, metrics and log lines show this
 * instead, the same everywhere, so that an operator can follow one session through all of them.
 */
export function sessionHash(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest().subarray(0, 16).toString('base64url');
}
