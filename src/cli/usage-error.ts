/** A mistake in how a command was called: `mcpwire` exits 2 with the message and the usage. */
export class UsageError extends Error {
  override name = 'UsageError';
}
