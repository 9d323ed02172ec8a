// Tool names come from the server behind the bridge, patterns from the command line: any characters at all, regular
// expressions' own among them. HiddenTools hides exactly the names a plain glob matcher (written here, by
// dynamic programming over the pattern) says match one of its patterns.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fc, fuzzRuns } from '../test-support/fuzz.js';
import { HiddenTools } from './hidden-tools.js';

/** Whether `name` matches `pattern`, `*` standing for any run of characters and every other character for itself. */
function globMatches(pattern: string, name: string): boolean {
  const p = [...pattern];
  const n = [...name];
  // reach[j]: the first i characters of the pattern match the first j of the name.
  let reach = n.map(() => false);
  reach = [true, ...reach];
  for (const c of p) {
    const next = reach.map(() => false);
    for (let j = 0; j <= n.length; j++) {
      if (c === '*') next[j] = reach[j] || (j > 0 && next[j - 1]);
      else next[j] = j > 0 && reach[j - 1] && n[j - 1] === c;
    }
    reach = next;
  }
  return reach[n.length];
}

// Characters that mean something to a regular expression, newlines and astral ones, beside plain letters.
const char = fc.constantFrom(
  'a',
  'b',
  '_',
  '-',
  '.',
  '*',
  '?',
  '+',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  '|',
  '^',
  '$',
  '\\',
  '\n',
  '😀',
  'é',
);
const text = fc.array(char, { maxLength: 8 }).map((chars) => chars.join(''));

test('a name is hidden exactly when a plain glob matcher matches it against one of the patterns', () => {
  fc.assert(
    fc.property(
      fc.array(text, { minLength: 1, maxLength: 3 }),
      fc.array(text, { maxLength: 6 }),
      (patterns, names) => {
        const hidden = new HiddenTools(patterns);
        for (const name of names) {
          const name_ = name.replaceAll('*', 'x');
          assert.equal(
            hidden.hides(name_),
            patterns.some((pattern) => globMatches(pattern, name_)),
            `${JSON.stringify(patterns)} ~ ${JSON.stringify(name_)}`,
          );
        }
      },
    ),
    fuzzRuns(2000),
  );
});

test('a pattern with no * hides its own name, whatever characters it has, and nothing else of the names', () => {
  fc.assert(
    fc.property(
      fc.string({ unit: 'binary', maxLength: 12 }).filter((s) => !s.includes('*')),
      fc.string(),
      (name, other) => {
        const hidden = new HiddenTools([name]);
        assert.ok(hidden.hides(name));
        assert.equal(hidden.hides(other), other === name);
      },
    ),
    fuzzRuns(1000),
  );
});
