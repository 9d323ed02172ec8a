// The builds of mcpwire a benchmark serves, from its `--dist [NAME=]DIR` options (an A/B when several).
import { basename, dirname, resolve } from 'node:path';

/** `[NAME=]DIR` specs (default: `fallback`), each named after its folder's parent (the checkout) unless named. */
export function parseBuilds(specs, fallback) {
  return (specs ?? [fallback]).map((spec) => {
    const eq = spec.indexOf('=');
    const dir = resolve(eq > 0 ? spec.slice(eq + 1) : spec);
    return { name: eq > 0 ? spec.slice(0, eq) : basename(dirname(dir)), dir };
  });
}
