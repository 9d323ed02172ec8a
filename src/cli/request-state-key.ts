import { createHash, randomBytes } from 'node:crypto';
import type { RequestStateKey } from '../server/request-state.js';

/**
 * The environment variable that gives `mcpwire serve` the secret sealing 2026-07-28 `requestState`: every
 * process behind one endpoint needs the same one, or a client's retry that reaches another process is refused.
 * `--workers N` draws one for its workers when it is not set; several hosts set it themselves.
 */
export const REQUEST_STATE_SECRET_ENV = 'MCPWIRE_REQUEST_STATE_SECRET';

/** The sealing key the environment names, or undefined (each process then draws its own). */
export function requestStateKeysFromEnv(env: NodeJS.ProcessEnv = process.env): RequestStateKey[] | undefined {
  const secret = env[REQUEST_STATE_SECRET_ENV];
  if (secret === undefined || secret === '') return undefined;
  // The id names the secret without revealing it, so that every process holding it agrees on the id.
  const id = `e${createHash('sha256').update(secret).digest('hex').slice(0, 12)}`;
  return [{ id, secret }];
}

/** A fresh secret for the workers of one `--workers N` run. */
export function drawRequestStateSecret(): string {
  return randomBytes(32).toString('base64url');
}
