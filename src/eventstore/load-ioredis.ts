import { createRequire } from 'node:module';

/** The one place mcpwire loads ioredis. */
const requireFromHere = createRequire(import.meta.url);

/**
 * ioredis, loaded on first use: it is an optional peer dependency, needed only by the Redis pieces (the Redis
 * event store, `mcpwire/cluster`, `mcpwire serve --redis`), so that everything else imports and runs without it.
 * Throws an error that says how to install it when it is missing.
 */
export function loadIoredis(): typeof import('ioredis') {
  try {
    return requireFromHere('ioredis');
  } catch (err) {
    const missing =
      (err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' &&
      (err as Error).message.startsWith("Cannot find module 'ioredis'");
    if (!missing) throw err;
    throw new Error(
      'Redis support (mcpwire/cluster, the Redis event store, serve --redis) needs the ioredis package, ' +
        'an optional peer dependency of mcpwire that is not installed: run `npm install ioredis`',
      { cause: err },
    );
  }
}
