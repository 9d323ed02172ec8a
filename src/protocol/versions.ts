/** The protocol revision this library implements and offers first. */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';

/** Every revision a peer may negotiate with us, newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  LATEST_PROTOCOL_VERSION,
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
];

/** True when `version` is one this library speaks. */
export function isSupportedVersion(version: string): boolean {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(version);
}

/**
 * The version a server answers initialize with: the one the client asked for when supported,
 * otherwise the latest (the client then decides whether it can speak it).
 */
export function negotiateVersion(requested: string): string {
  return isSupportedVersion(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/**
 * True when a session speaking `version` accepts JSON-RPC batches. Only 2025-03-26 does: its
 * changelog is the one that added batching, and 2025-06-18 removed it. 2024-11-05 defines a
 * message as a single request, notification or response (its schema has no batch type), so a
 * batch is refused there too.
 */
export function acceptsBatches(version: string): boolean {
  return version === '2025-03-26';
}
