/*
 * Run settings for the property tests that fuzz mcpwire's inputs (parser, params guards, HTTP intake, SSE
 * writer). The suite runs each property a bounded number of times from a fixed seed, so it is deterministic;
 * a long fuzz sets the environment:
 *   MCPWIRE_FUZZ_RUNS=20000 MCPWIRE_FUZZ_SEED=$RANDOM node --import tsx --test <file>.property.test.ts
 * A failure prints the seed and path that reproduce it (pass both back through fc.assert to replay).
 */

/** The default seed of every fuzz property: fixed, so a CI failure reproduces on any machine. */
export const DEFAULT_FUZZ_SEED = 0x6d637077;

/** fast-check parameters for a property that runs `defaultRuns` times in the suite. */
export function fuzzRuns(defaultRuns: number): { numRuns: number; seed: number } {
  return {
    numRuns: envInt('MCPWIRE_FUZZ_RUNS') ?? defaultRuns,
    seed: envInt('MCPWIRE_FUZZ_SEED') ?? DEFAULT_FUZZ_SEED,
  };
}

function envInt(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`${name} must be an integer, got ${JSON.stringify(raw)}`);
  return n;
}
