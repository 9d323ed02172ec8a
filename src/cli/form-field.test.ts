import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PrimitiveSchemaDefinition } from '../protocol/types.js';
import { fieldQuestion, parseField } from './form-field.js';

const value = (schema: PrimitiveSchemaDefinition, typed: string) => {
  const parsed = parseField(schema, typed);
  assert.ok(
    'value' in parsed,
    `expected a value for ${JSON.stringify(typed)}, got ${JSON.stringify(parsed)}`,
  );
  return parsed.value;
};
const problem = (schema: PrimitiveSchemaDefinition, typed: string) => {
  const parsed = parseField(schema, typed);
  assert.ok(
    'problem' in parsed,
    `expected ${JSON.stringify(typed)} to be refused, got ${JSON.stringify(parsed)}`,
  );
  return parsed.problem;
};

test('text without the spaces around it; lengths count characters, not UTF-16 units', () => {
  const name: PrimitiveSchemaDefinition = { type: 'string', minLength: 2, maxLength: 3 };
  assert.equal(value(name, ' Ada  '), 'Ada');
  assert.equal(value(name, '😀😀'), '😀😀');
  assert.match(problem(name, 'A'), /at least 2 characters/);
  assert.match(problem(name, 'Adam!'), /at most 3 characters/);
});

test('string formats are checked: email, uri, date, date-time', () => {
  assert.equal(value({ type: 'string', format: 'email' }, 'ada@example.com'), 'ada@example.com');
  assert.match(problem({ type: 'string', format: 'email' }, 'ada@'), /must be an email address/);
  assert.equal(value({ type: 'string', format: 'uri' }, 'https://example.com/x'), 'https://example.com/x');
  assert.match(problem({ type: 'string', format: 'uri' }, 'example.com'), /must be a URI/);
  assert.equal(value({ type: 'string', format: 'date' }, '2024-02-29'), '2024-02-29');
  assert.match(problem({ type: 'string', format: 'date' }, '2025-02-29'), /must be a date/);
  assert.equal(
    value({ type: 'string', format: 'date-time' }, '2025-11-25T09:30:00+01:00'),
    '2025-11-25T09:30:00+01:00',
  );
  assert.match(problem({ type: 'string', format: 'date-time' }, '2025-11-25'), /must be a date and time/);
});

test('a pattern is checked, and one that is no regular expression checks nothing', () => {
  assert.equal(value({ type: 'string', pattern: '^[a-z]+$' }, 'ada'), 'ada');
  assert.match(problem({ type: 'string', pattern: '^[a-z]+$' }, 'Ada'), /must match the pattern/);
  assert.equal(value({ type: 'string', pattern: '(' }, 'anything'), 'anything');
});

test('numbers and integers, with their bounds', () => {
  const age: PrimitiveSchemaDefinition = { type: 'integer', minimum: 0, maximum: 150 };
  assert.equal(value(age, ' 42 '), 42);
  assert.match(problem(age, '4.5'), /must be an integer/);
  assert.match(problem(age, 'forty'), /not a number/);
  assert.match(problem(age, '-1'), /must be at least 0/);
  assert.match(problem(age, '151'), /must be at most 150/);
  assert.equal(value({ type: 'number' }, '4.5'), 4.5);
});

test('booleans take yes or no in a few spellings', () => {
  for (const yes of ['y', 'Yes', 'true', '1']) assert.equal(value({ type: 'boolean' }, yes), true);
  for (const no of ['n', 'NO', 'false', '0']) assert.equal(value({ type: 'boolean' }, no), false);
  assert.match(problem({ type: 'boolean' }, 'maybe'), /yes or no/);
});

test('a single choice by its value, its number in the list, or its title', () => {
  const color: PrimitiveSchemaDefinition = {
    type: 'string',
    oneOf: [
      { const: 'r', title: 'Red' },
      { const: 'g', title: 'Green' },
    ],
  };
  assert.equal(value(color, 'g'), 'g');
  assert.equal(value(color, '1'), 'r');
  assert.equal(value(color, 'green'), 'g');
  assert.match(problem(color, '3'), /none of the choices/);
  // Legacy enumNames title the values too; a value that looks like a number is still a value first.
  const legacy: PrimitiveSchemaDefinition = { type: 'string', enum: ['2', '1'], enumNames: ['Two', 'One'] };
  assert.equal(value(legacy, '1'), '1');
  assert.equal(value(legacy, 'two'), '2');
});

test('several choices separated by commas, within minItems and maxItems, none twice', () => {
  const toppings: PrimitiveSchemaDefinition = {
    type: 'array',
    minItems: 1,
    maxItems: 2,
    items: { type: 'string', enum: ['ham', 'egg', 'cheese'] },
  };
  assert.deepEqual(value(toppings, 'ham, 3'), ['ham', 'cheese']);
  assert.match(problem(toppings, 'ham,1'), /"ham" is chosen twice/);
  assert.match(problem(toppings, 'ham,egg,cheese'), /at most 2/);
  assert.match(problem(toppings, ','), /at least 1/);
  assert.match(problem(toppings, 'spam'), /"spam" is none of the choices/);
});

test('the question shows the title, description, choices, what the field takes and what Enter does', () => {
  assert.equal(
    fieldQuestion('name', { type: 'string', title: 'Name', description: 'Your name', minLength: 1 }, true),
    'Name — Your name\n  [text, at least 1 characters; required]: ',
  );
  assert.equal(
    fieldQuestion('size', { type: 'string', enum: ['s', 'm'], default: 'm' }, false),
    'size\n    1) s\n    2) m\n  [a number or a value above; Enter for m]: ',
  );
  assert.equal(
    fieldQuestion('n', { type: 'integer', minimum: 1, maximum: 9 }, false),
    'n\n  [an integer, 1 to 9; Enter to leave out]: ',
  );
  assert.match(
    fieldQuestion('c', { type: 'string', oneOf: [{ const: 'r', title: 'Red' }] }, true),
    /\n {4}1\) Red \(r\)\n/,
  );
});
