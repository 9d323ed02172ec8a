import { randomBase64url } from '../util/base64.js';

/** Random bytes in a task id: 128 bits, so that an id cannot be guessed (the principal check stands behind it). */
const TASK_ID_BYTES = 16;

/**
 * A new task id: 128 bits from the runtime's CSPRNG, base64url (22 characters, safe in a header and a URL), drawn
 * again when it would begin with `-` or `_` (1 in 32): a command line (`mcpwire call URL task ID`) must read it as
 * an argument, not an option.
 */
export function newTaskId(): string {
  for (;;) {
    const id = randomBase64url(TASK_ID_BYTES);
    if (id[0] !== '-' && id[0] !== '_') return id;
  }
}
