// A server's result is input no one here wrote: whatever value comes, the check names a problem or none, and never
// throws; a fitting result with one field broken is found out at that field. Runs and seed: test-support/fuzz.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fc, fuzzRuns } from '../test-support/fuzz.js';
import { serverResultProblem } from './server-results.js';

const METHODS = fc.constantFrom(
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
);

describe('a server result checked against its method (property)', () => {
  test('any value, for any method checked: a problem or none, never a throw (property)', () => {
    fc.assert(
      fc.property(METHODS, fc.jsonValue({ maxDepth: 4 }), fc.anything(), (method, json, anything) => {
        for (const value of [json, anything]) {
          const problem = serverResultProblem(method, value);
          assert.ok(problem === undefined || problem.startsWith('.') || problem.startsWith(' '));
        }
      }),
      fuzzRuns(200),
    );
  });

  test('a fitting result with one field broken is found out there (property)', () => {
    // A tools/list of fitting tools, one of whose names is replaced by a value that is not a string.
    const tool = fc.record({ name: fc.string(), inputSchema: fc.constant({ type: 'object' }) });
    const notString = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string()));
    fc.assert(
      fc.property(fc.array(tool, { minLength: 1, maxLength: 5 }), fc.nat(), notString, (tools, at, name) => {
        assert.equal(serverResultProblem('tools/list', { tools }), undefined);
        const i = at % tools.length;
        const broken = tools.map((t, j) => (j === i ? { ...t, name } : t));
        assert.equal(
          serverResultProblem('tools/list', { tools: broken }),
          `.tools[${i}].name must be a string`,
        );
      }),
      fuzzRuns(200),
    );
  });
});
