import { createRequire } from 'node:module';
import { sessionHash } from '../util/session-hash.js';
import type { OpenTelemetryApi } from './open-telemetry.js';
import { providePlatformDefaults } from './resolve.js';

/*
 * What Node provides to telemetry, loaded by the Node entry points (the server, the transports): the optional peer
 * `@opentelemetry/api`, required synchronously where the application installed it (the same module instance its
 * own `import` gets, so the providers it registers are the ones found) when the first Server or Client is made,
 * not before (a process that makes none, `mcpwire --help`, never loads it); and SHA-256 to name sessions. Nothing
 * fails when the package is missing: telemetry then stays off unless a `telemetry.api` is given.
 */
const require = createRequire(import.meta.url);

/** `id` where installed; undefined when it is not (a broken install of it still throws). */
function optional<T>(id: string): T | undefined {
  try {
    return require(id) as T;
  } catch (err) {
    const missing =
      (err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' &&
      (err as Error).message.startsWith(`Cannot find module '${id}'`);
    if (missing) return undefined;
    throw err;
  }
}

let loaded: { api: OpenTelemetryApi | undefined } | undefined;

providePlatformDefaults({
  api: () => {
    loaded ??= { api: optional<OpenTelemetryApi>('@opentelemetry/api') };
    return loaded.api;
  },
  hashSession: sessionHash,
  version: () => optional<{ version: string }>('../../package.json')?.version,
});
