import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { stringify } from 'yaml';
import { fc } from '../../test-support/fuzz.js';
import { FrontmatterError, readSkillMarkdown } from './frontmatter.js';

describe('readSkillMarkdown', () => {
  test('front matter in the YAML 1.2 core schema, and the body after it', () => {
    const read = readSkillMarkdown(
      '\uFEFF---\r\nname: a\r\ndescription: "x: y"\r\nyes: yes\r\nhex: 0x10\r\nwhen: 2026-01-01\r\nlist: [1, two]\r\n---\r\nBody\r\n',
    );
    assert.deepEqual(read.frontmatter, {
      name: 'a',
      description: 'x: y',
      yes: 'yes',
      hex: 16,
      when: '2026-01-01',
      list: [1, 'two'],
    });
    assert.equal(read.body, 'Body\n');
  });

  test('refuses what hosts would read differently, saying what', () => {
    const refused: Array<[string, RegExp]> = [
      ['name: a\n---\n', /must begin with a "---" line/],
      ['---\nname: a\n', /no closing "---" line/],
      ['---\n- a\n---\n', /must be a mapping/],
      ['---\na: 1\na: 2\n---\n', /SKILL.md line 3: Map keys must be unique/],
      ['---\na: &x 1\nb: *x\n---\n', /anchors and aliases/],
      ['---\nn: .inf\n---\n', /n is not a finite number/],
      ['---\n__proto__: 1\n---\n', /__proto__/],
    ];
    for (const [text, why] of refused) {
      assert.throws(
        () => readSkillMarkdown(text),
        (err: Error) => err instanceof FrontmatterError && why.test(err.message),
        text,
      );
    }
  });

  test('whatever the text, it reads or throws FrontmatterError, never anything else', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (yaml, body) => {
        try {
          readSkillMarkdown(`---\n${yaml.replaceAll('---', '- -')}\n---\n${body}`);
        } catch (err) {
          assert.ok(err instanceof FrontmatterError, String(err));
        }
      }),
    );
  });

  test('any JSON front matter written as YAML reads back equal', () => {
    const key = fc.string({ minLength: 1 }).filter((k) => k !== '__proto__');
    const leaf = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    );
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node')), fc.dictionary(key, tie('node'))),
    })).node;
    fc.assert(
      fc.property(fc.dictionary(key, value), (frontmatter) => {
        const read = readSkillMarkdown(`---\n${stringify(frontmatter)}---\nbody`);
        // As the wire carries them (JSON has no -0).
        const wire = (value: unknown) => JSON.parse(JSON.stringify(value));
        assert.deepEqual(wire(read.frontmatter), wire(frontmatter));
        assert.equal(read.body, 'body');
      }),
    );
  });
});
