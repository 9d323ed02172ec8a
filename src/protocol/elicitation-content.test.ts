import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { contentFault, fieldFault, STRING_FORMATS } from './elicitation-content.js';

const problem = (schema: unknown, value: unknown) => fieldFault(schema, value)?.problem;

/** Per format: what it is said to take, texts it takes, and texts it refuses. */
const FORMAT_CASES: [keyof typeof STRING_FORMATS, string, string[], string[]][] = [
  [
    'email',
    'a dot-atom, "@", a domain of two labels or more (no label starting with "-"; at most 64 before "@")',
    ['ada@example.com', 'a.b+tag@mail.example.co.uk', "o'hara@x-y.org", 'x@1.io'],
    [
      'ada',
      'ada@',
      '@example.com',
      'ada@localhost',
      'a..b@x.io',
      '.a@x.io',
      'a b@x.io',
      'a@-x.io',
      `${'a'.repeat(65)}@x.io`,
    ],
  ],
  [
    'uri',
    'a scheme, then only the characters of RFC 3986, every "%" an escape',
    ['https://example.com/a?b=c#d', 'urn:isbn:0451450523', 'mailto:a@b.c', 'file:///tmp/x%20y'],
    ['example.com', '/relative', 'https://x/a b', 'https://x/%zz', 'ht tp://x', '1http://x', ''],
  ],
  [
    'date',
    'a day that exists, in any year of four digits',
    ['2024-02-29', '2000-02-29', '0050-01-31', '1999-12-31'],
    ['2025-02-29', '1900-02-29', '2025-04-31', '2025-13-01', '2025-00-10', '2025-1-1', '2025-01-01T'],
  ],
  [
    'date-time',
    'RFC 3339, with seconds and an offset; a leap second is allowed',
    [
      '2025-11-25T09:30:00Z',
      '2025-11-25t09:30:00.123z',
      '2025-11-25T23:59:60+01:00',
      '2025-11-25T00:00:00-23:59',
    ],
    [
      '2025-11-25',
      '2025-11-25 09:30:00Z',
      '2025-11-25T09:30Z',
      '2025-11-25T24:00:00Z',
      '2025-11-25T09:60:00Z',
      '2025-11-25T09:30:00',
      '2025-11-25T09:30:00+24:00',
      '2025-02-30T09:30:00Z',
    ],
  ],
];

describe('string formats', () => {
  for (const [format, what, good, bad] of FORMAT_CASES) {
    test(`${format}: ${what}`, () => {
      for (const text of good) assert.ok(STRING_FORMATS[format].valid(text), text);
      for (const text of bad) assert.ok(!STRING_FORMATS[format].valid(text), text);
    });
  }
});

describe('fieldFault', () => {
  test('a string: its length in characters (not UTF-16 units), format, pattern and choices', () => {
    const name = { type: 'string', minLength: 2, maxLength: 3 };
    assert.equal(problem(name, '😀😀'), undefined);
    assert.equal(problem(name, 'A'), 'must have at least 2 characters');
    assert.equal(problem(name, 'Adam'), 'must have at most 3 characters');
    assert.equal(problem(name, 12), 'must be a string');
    assert.equal(problem({ type: 'string', format: 'email' }, 'nope'), 'must be an email address');
    assert.equal(
      problem({ type: 'string', format: 'hostname' }, 'any thing'),
      undefined,
      'unknown formats check nothing',
    );
    assert.equal(
      problem({ type: 'string', pattern: '^[a-z]+$' }, 'Ada'),
      'must match the pattern "^[a-z]+$"',
    );
    assert.equal(
      problem({ type: 'string', pattern: '(' }, 'Ada'),
      undefined,
      'a broken pattern is the server’s fault',
    );
    assert.equal(problem({ type: 'string', enum: ['s', 'm'] }, 'xl'), 'must be one of "s", "m"');
    const titled = { type: 'string', oneOf: [{ const: '#f00', title: 'Red' }] };
    assert.equal(problem(titled, '#f00'), undefined);
    assert.equal(problem(titled, 'Red'), 'must be one of "#f00"', 'the title is not the value');
  });

  test('a long list of choices is cut short in the message', () => {
    const many = { type: 'string', enum: Array.from({ length: 25 }, (_, i) => `v${i}`) };
    assert.match(problem(many, 'x')!, /"v9" \(or 15 more\)$/);
  });

  test('numbers and integers, with their bounds', () => {
    const age = { type: 'integer', minimum: 0, maximum: 150 };
    assert.equal(problem(age, 42), undefined);
    assert.equal(problem(age, 4.5), 'must be an integer');
    assert.equal(problem(age, '42'), 'must be an integer');
    assert.equal(problem(age, -1), 'must be at least 0');
    assert.equal(problem(age, 151), 'must be at most 150');
    assert.equal(problem({ type: 'number' }, 4.5), undefined);
    assert.equal(problem({ type: 'number' }, true), 'must be a number');
  });

  test('a boolean', () => {
    assert.equal(problem({ type: 'boolean' }, false), undefined);
    assert.equal(problem({ type: 'boolean' }, 'false'), 'must be a boolean');
  });

  test('a multi-select: an array of the choices of its items, between minItems and maxItems', () => {
    const toppings = {
      type: 'array',
      minItems: 1,
      maxItems: 2,
      items: { type: 'string', enum: ['ham', 'egg'] },
    };
    assert.equal(problem(toppings, ['egg']), undefined);
    assert.equal(problem(toppings, []), 'must have at least 1 items');
    assert.equal(problem(toppings, ['ham', 'egg', 'ham']), 'must have at most 2 items');
    assert.deepEqual(fieldFault(toppings, ['ham', 'spam']), {
      at: '[1]',
      problem: 'must be one of "ham", "egg"',
    });
    assert.deepEqual(fieldFault(toppings, ['ham', 3]), { at: '[1]', problem: 'must be a string' });
    assert.equal(problem(toppings, 'ham'), 'must be an array of strings');
    const titled = { type: 'array', items: { anyOf: [{ const: 'r', title: 'Red' }] } };
    assert.equal(problem(titled, ['r', 'r']), undefined);
    assert.equal(fieldFault(titled, ['Red'])?.at, '[0]');
  });

  test('a schema outside the subset checks only that the value is one a form can hold', () => {
    for (const schema of [undefined, null, 'string', { type: 'object' }, { type: 'null' }]) {
      assert.equal(problem(schema, 'x'), undefined);
      assert.equal(problem(schema, ['a']), undefined);
      assert.equal(problem(schema, { nested: 1 }), 'must be a string, number, boolean or array of strings');
      assert.equal(problem(schema, null), 'must be a string, number, boolean or array of strings');
    }
  });
});

describe('contentFault', () => {
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1 },
      age: { type: 'integer', minimum: 0 },
      'favourite colour': { type: 'string', enum: ['red', 'blue'], default: 'red' },
    },
    required: ['name'],
  };

  test('a form that fits, with or without its optional values', () => {
    assert.equal(contentFault(schema, { name: 'Ada' }), undefined);
    assert.equal(contentFault(schema, { name: 'Ada', age: 36, 'favourite colour': 'blue' }), undefined);
  });

  test('names the property that is missing or wrong, quoting a name that is not an identifier', () => {
    assert.deepEqual(contentFault(schema, {}), { at: '.name', problem: 'is required' });
    assert.deepEqual(contentFault(schema, { name: 'Ada', age: 'old' }), {
      at: '.age',
      problem: 'must be an integer',
    });
    assert.deepEqual(contentFault(schema, { name: 'Ada', 'favourite colour': 'green' }), {
      at: '["favourite colour"]',
      problem: 'must be one of "red", "blue"',
    });
  });

  test('a value under a name the schema does not have must still be one a form can hold', () => {
    assert.equal(contentFault(schema, { name: 'Ada', note: 'extra' }), undefined);
    assert.deepEqual(contentFault(schema, { name: 'Ada', note: { x: 1 } }), {
      at: '.note',
      problem: 'must be a string, number, boolean or array of strings',
    });
  });

  test('names inherited from Object.prototype are neither properties of the schema nor present values', () => {
    const hostile = JSON.parse('{"name":"Ada","__proto__":{"x":1},"constructor":7}');
    assert.deepEqual(contentFault(schema, hostile), {
      at: '.__proto__',
      problem: 'must be a string, number, boolean or array of strings',
    });
    assert.deepEqual(
      contentFault({ type: 'object', properties: {}, required: ['toString'] }, { name: 'x' }),
      {
        at: '.toString',
        problem: 'is required',
      },
    );
    assert.equal(
      contentFault({ type: 'object', properties: {} }, { constructor: 'x', toString: 1 }),
      undefined,
    );
  });

  test('a requestedSchema that is no object checks only the values', () => {
    assert.equal(contentFault(undefined, { a: 1 }), undefined);
    assert.equal(contentFault('junk', { a: [1] })?.at, '.a');
  });
});
