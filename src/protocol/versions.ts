/**
 * The two eras of MCP, kept apart: a legacy revision is negotiated once per session by `initialize`; a
 * modern one is claimed by every request in its `_meta` (spec 2026-07-28, basic/versioning).
 */
export type Era = 'legacy' | 'modern';

/** The legacy revision this library implements and offers first at initialize. */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';

/** Every legacy revision a peer may negotiate with us at initialize, newest first. */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = [
  LATEST_PROTOCOL_VERSION,
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
];

/** The first modern revision: every revision that sorts at or after it is modern (the spec's rule). */
export const FIRST_MODERN_VERSION = '2026-07-28';

/** Every modern revision this library serves, newest first: what `server/discover` and -32022 list. */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = [FIRST_MODERN_VERSION];

/** True when `version` is one this library speaks with a session (after initialize). */
export function isLegacyVersion(version: string): boolean {
  return LEGACY_PROTOCOL_VERSIONS.includes(version);
}

/**
 * The era a revision string claims. Revisions compare as strings, so anything sorting at or after the first
 * modern one is modern, served or not (a client probing with "v999" is answered -32022, not as legacy).
 */
export function eraOf(version: string): Era {
  return version >= FIRST_MODERN_VERSION ? 'modern' : 'legacy';
}

/** True when `version` is a modern revision this library serves. */
export function isModernVersion(version: string): boolean {
  return MODERN_PROTOCOL_VERSIONS.includes(version);
}

/**
 * The version a server answers initialize with: the one the client asked for when supported,
 * otherwise the latest (the client then decides whether it can speak it).
 */
export function negotiateVersion(requested: string): string {
  return isLegacyVersion(requested) ? requested : LATEST_PROTOCOL_VERSION;
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
