import { StoreUnavailableError } from '../eventstore/store-unavailable-error.js';

/** A failed Redis call, in the words a client and an operator need (the HTTP layer answers it with 503). */
export function redisFailure(err: unknown): StoreUnavailableError {
  if (err instanceof StoreUnavailableError) return err.as('shared session state');
  const message = err instanceof Error ? err.message : String(err);
  let detail: string;
  if (message.startsWith("Stream isn't writeable")) detail = 'Redis is not connected';
  else if (message === 'Command timed out') detail = 'Redis did not answer in time';
  else detail = `Redis failed (${message})`;
  return new StoreUnavailableError(detail, { cause: err, store: 'shared session state' });
}
