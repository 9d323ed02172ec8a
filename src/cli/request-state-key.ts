import { createHash, randomBytes } from 'node:crypto';
import type { RequestStateKey } from '../server/modern/request-state.js';

/**
 * The environment variable that gives `mcpwire serve` the secrets sealing 2026-07-28 `requestState`: every
 * process behind one endpoint needs the same ones, or a client's retry that reaches another process is refused.
 * Several secrets, separated by commas, rotate it without refusing anything: the first signs, every one opens.
 * When it is not set, `--redis` takes the cluster's secret from Redis (every host the same), and `--workers N`
 * alone draws one for its workers.
 */
export const REQUEST_STATE_SECRET_ENV = 'MCPWIRE_REQUEST_STATE_SECRET';

/** The sealing keys the environment names, the signing one first, or undefined (each process then draws its own). */
export function requestStateKeysFromEnv(env: NodeJS.ProcessEnv = process.env): RequestStateKey[] | undefined {
  const secrets = (env[REQUEST_STATE_SECRET_ENV] ?? '')
    .split(',')
    .map((secret) => secret.trim())
    .filter((secret) => secret !== '');
  return secrets.length === 0 ? undefined : secrets.map(requestStateKeyOf);
}

/** The key of `secret`: its id names the secret without revealing it, so every process holding it agrees. */
export function requestStateKeyOf(secret: string): RequestStateKey {
  return { id: `e${createHash('sha256').update(secret).digest('hex').slice(0, 12)}`, secret };
}

/** A fresh secret for the workers of one `--workers N` run. */
export function drawRequestStateSecret(): string {
  return randomBytes(32).toString('base64url');
}
