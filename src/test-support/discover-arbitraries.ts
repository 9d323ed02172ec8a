import { fc } from './fuzz.js';
import { discoverResult } from './scripted-http.js';

/*
 * Property-test material for the dual-era probe: hostile answers to `server/discover` (any JSON where a result
 * goes, any code, message and data in an error), and what spec 2026-07-28's backwards-compatibility rules make
 * of each, written from the spec apart from the library's reading of it (src/client/negotiation/probe.ts).
 */

/** The modern version the probing client speaks. */
export const OURS = '2026-07-28';

const versionList = fc.array(fc.constantFrom(OURS, '2025-11-25', '2025-06-18', '2099-01-01', 'x', ''), {
  maxLength: 3,
});

const anyData = fc.oneof(
  fc.jsonValue(),
  fc.record({ supported: fc.oneof({ weight: 3, arbitrary: versionList }, fc.jsonValue()) }),
);

/** What a server may put where a discover result goes: one, one nearly, or anything. */
export const anyResult = fc.oneof(
  fc.jsonValue(),
  { weight: 2, arbitrary: fc.constant(discoverResult()) },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        supportedVersions: fc.oneof({ weight: 3, arbitrary: versionList }, fc.jsonValue()),
        capabilities: fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, fc.jsonValue()),
        _meta: fc.jsonValue(),
      },
      { requiredKeys: ['supportedVersions', 'capabilities'] },
    ),
  },
);

/** What a server may put in an error object: the codes the rules name, and any other. */
export const anyError = fc.record({
  code: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(-32601, -32600, -32602, -32000, -32020, -32021, -32022) },
    fc.integer(),
  ),
  message: fc.oneof({ weight: 4, arbitrary: fc.string() }, fc.jsonValue()),
  data: anyData,
});

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A result a client may speak the modern era from: it lists our version and has capabilities. */
function isUsableDiscover(result: unknown): boolean {
  return (
    isRecord(result) &&
    Array.isArray(result.supportedVersions) &&
    result.supportedVersions.includes(OURS) &&
    isRecord(result.capabilities)
  );
}

/** True for an object JSON-RPC 2.0 reads as a response: a result, or an error with a number and a string. */
export function isResponse(v: unknown): v is Record<string, unknown> {
  if (!isRecord(v) || v.jsonrpc !== '2.0') return false;
  if (v.result !== undefined) return true;
  const e = v.error;
  return isRecord(e) && typeof e.code === 'number' && typeof e.message === 'string';
}

/** What a probe is to end with: an era, or a modern server's refusal with its code. */
export type Verdict = { era: 'modern' | 'legacy' } | { refused: number };

/**
 * The verdict for the answer a probe read (undefined: none), asked again the same way every time: a response to
 * the probe's id holding a usable discover result is modern; an error is read as `errorMeaning` says; anything
 * else, however garbled, is legacy.
 */
export function verdictFor(answer: unknown, probeId: unknown, status?: number): Verdict {
  if (!isResponse(answer) || answer.id !== probeId) return { era: 'legacy' };
  if (answer.result !== undefined) return { era: isUsableDiscover(answer.result) ? 'modern' : 'legacy' };
  const error = answer.error as { code: number; data?: unknown };
  return errorMeaning(error, status) === 'refused' ? { refused: error.code } : { era: 'legacy' };
}

/**
 * What an error answer to discover means: a modern server's refusal (-32020, -32021, -32022 however it lists
 * versions, and -32601 with HTTP 404), unless its `supported` list names only versions before the modern era (a
 * server that wants initialize); any other error means legacy.
 */
function errorMeaning(error: { code: number; data?: unknown }, status?: number): 'refused' | 'legacy' {
  const supported = isRecord(error.data) ? error.data.supported : undefined;
  // Versions are dates: one before the first modern version is of the legacy era.
  const legacyOnly =
    Array.isArray(supported) &&
    supported.length > 0 &&
    supported.every((v) => typeof v === 'string' && v < OURS);
  if (legacyOnly) return 'legacy';
  const refusal = [-32020, -32021, -32022].includes(error.code) || (error.code === -32601 && status === 404);
  return refusal ? 'refused' : 'legacy';
}
