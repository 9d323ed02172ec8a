import type { ElicitRequestFormParams, ElicitResult } from '../protocol/types.js';

type ElicitContent = NonNullable<ElicitResult['content']>;

/**
 * The content of an accepted form elicitation with every property the user left out filled from
 * the requested schema's `default` (SEP-1034), so the server sees the values the form showed.
 * Values present in `content` are never replaced. Pure: returns `content` itself when nothing is
 * missing, otherwise a new object (array defaults are copied, never shared with the schema).
 */
export function applyElicitationDefaults(
  schema: ElicitRequestFormParams['requestedSchema'],
  content: ElicitContent | undefined,
): ElicitContent | undefined {
  const properties = schema.properties;
  let filled: ElicitContent | undefined;
  for (const key in properties) {
    // Assigning "__proto__" would swap the result's prototype instead of adding a property.
    if (key === '__proto__') continue;
    const fallback = properties[key].default;
    if (fallback === undefined || (content !== undefined && content[key] !== undefined)) continue;
    filled ??= { ...content };
    filled[key] = Array.isArray(fallback) ? fallback.slice() : fallback;
  }
  return filled ?? content;
}
