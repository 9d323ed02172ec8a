import { CapabilityError } from '../peer/errors.js';
import type { ServerCapabilities } from '../protocol/types.js';

/** A server feature a client request needs, by capability name. */
export type ServerFeature = 'tools' | 'resources' | 'prompts' | 'completions' | 'logging';

/**
 * Throws CapabilityError when the server did not declare `feature`, naming it and `method`, the request that
 * needed it: a ClientSession checks first and sends nothing then.
 */
export function requireFeature(
  capabilities: ServerCapabilities,
  feature: ServerFeature,
  method: string,
): void {
  if (capabilities[feature] === undefined) {
    throw new CapabilityError(
      `The server did not declare the "${feature}" capability, so ${method} was not sent`,
    );
  }
}

/** The same for `resources.subscribe`, which subscribing and unsubscribing need. */
export function requireSubscribe(capabilities: ServerCapabilities, method: string): void {
  if (capabilities.resources?.subscribe !== true) {
    throw new CapabilityError(`The server did not declare "resources.subscribe", so ${method} was not sent`);
  }
}
