/*
 * fast-check as every property test here uses it: import `fc` from this file, never from 'fast-check' (the lint
 * refuses that), so that each property
 *   - runs from a fixed seed, and a CI failure reproduces on any machine;
 *   - generates what its bounds say: fast-check by default keeps a string or array to about ten items whatever
 *     its `maxLength`, so `fc.string({ maxLength: 200 })` never made a string longer than ten characters here.
 * A long fuzz sets the environment:
 *   MCPWIRE_FUZZ_RUNS=20000 MCPWIRE_FUZZ_SEED=$RANDOM node --import tsx --test <file>.property.test.ts
 * A failure prints the seed and path that reproduce it (pass both back through fc.assert to replay).
 */
import fc from 'fast-check';

/** The default seed of every property: fixed, so a CI failure reproduces on any machine. */
export const DEFAULT_FUZZ_SEED = 0x6d637077;

const RUNS = envInt('MCPWIRE_FUZZ_RUNS');

fc.configureGlobal({
  seed: envInt('MCPWIRE_FUZZ_SEED') ?? DEFAULT_FUZZ_SEED,
  // Each property's own count unless the environment says otherwise (fuzzRuns); fast-check's 100 without one.
  ...(RUNS === undefined ? {} : { numRuns: RUNS }),
  defaultSizeToMaxWhenMaxSpecified: true,
});

export { fc };

/** fast-check parameters for a property that runs `defaultRuns` times in the suite. */
export function fuzzRuns(defaultRuns: number): { numRuns: number } {
  return { numRuns: RUNS ?? defaultRuns };
}

function envInt(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`${name} must be an integer, got ${JSON.stringify(raw)}`);
  return n;
}
