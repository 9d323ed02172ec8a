// A WWW-Authenticate header comes from a server the client does not control. Whatever it holds, parseChallenge
// never throws; for a list of challenges it reads each parameter from the DPoP challenge where it has it, else from
// the Bearer one, the first value of each, and says whether a DPoP challenge was there. Runs and seed:
// src/test-support/fuzz.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fc, fuzzRuns } from '../../test-support/fuzz.js';
import { parseChallenge } from './www-authenticate.js';

const PARAMS = ['error', 'error_description', 'scope', 'resource_metadata'] as const;
const FIELDS = {
  error: 'error',
  error_description: 'errorDescription',
  scope: 'scope',
  resource_metadata: 'resourceMetadata',
};

/** A parameter's value: a token, or a quoted string with commas, spaces and escapes. */
const value = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_.~+-]{1,12}$/).map((text) => ({ text, written: text })),
  fc
    .string({ maxLength: 16 })
    .filter((text) => !/[\r\n]/.test(text))
    .map((text) => ({ text, written: `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"` })),
);
const challenge = fc.record({
  scheme: fc.constantFrom('Bearer', 'bearer', 'DPoP', 'dpop', 'Basic', 'Negotiate'),
  params: fc.array(fc.tuple(fc.constantFrom(...PARAMS, 'realm', 'algs'), value), { maxLength: 5 }),
});

test('any header: no throw, and string parameters only', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 200 }), (header) => {
      const parsed = parseChallenge(header);
      if (parsed === undefined) return;
      for (const [field, got] of Object.entries(parsed)) {
        assert.ok(field === 'dpop' ? got === true : typeof got === 'string', `${field}: ${got}`);
      }
    }),
    fuzzRuns(1000),
  );
});

test("a list of challenges: each parameter the DPoP challenge's, else the Bearer one's; dpop when one was sent", () => {
  fc.assert(
    fc.property(fc.array(challenge, { minLength: 1, maxLength: 4 }), (challenges) => {
      const header = challenges
        .map(({ scheme, params }) =>
          [scheme, params.map(([name, v]) => `${name}=${v.written}`).join(', ')].join(' '),
        )
        .join(', ');
      const first = (scheme: string) => challenges.find((c) => c.scheme.toLowerCase() === scheme);
      const bearer = first('bearer');
      const dpop = first('dpop');
      const parsed = parseChallenge(header);
      if (bearer === undefined && dpop === undefined) return assert.equal(parsed, undefined, header);
      const expected: Record<string, unknown> = dpop === undefined ? {} : { dpop: true };
      for (const name of PARAMS) {
        const of = (c: typeof bearer) => c?.params.find(([n]) => n === name)?.[1].text;
        const got = of(dpop) ?? of(bearer);
        if (got !== undefined) expected[FIELDS[name]] = got;
      }
      assert.deepEqual(parsed, expected, header);
    }),
    fuzzRuns(500),
  );
});
