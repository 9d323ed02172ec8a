import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ElicitRequestFormParams } from '../protocol/types.js';
import { applyElicitationDefaults } from './elicitation-defaults.js';

type Schema = ElicitRequestFormParams['requestedSchema'];

const schema: Schema = {
  type: 'object',
  properties: {
    name: { type: 'string', default: 'Ada' },
    age: { type: 'integer', default: 36 },
    subscribed: { type: 'boolean', default: false },
    colours: { type: 'array', items: { type: 'string', enum: ['r', 'g', 'b'] }, default: ['r', 'g'] },
    email: { type: 'string', format: 'email' },
  },
  required: ['name'],
};

describe('applyElicitationDefaults', () => {
  test('fills every missing property that has a default, and only those', () => {
    assert.deepEqual(applyElicitationDefaults(schema, { email: 'a@b.c' }), {
      email: 'a@b.c',
      name: 'Ada',
      age: 36,
      subscribed: false,
      colours: ['r', 'g'],
    });
  });

  test('never replaces a value the user gave, falsy ones included', () => {
    const content = { name: '', age: 0, subscribed: false, colours: [] };
    assert.equal(applyElicitationDefaults(schema, content), content);
  });

  test('builds the content from defaults when there was none', () => {
    assert.deepEqual(applyElicitationDefaults(schema, undefined), {
      name: 'Ada',
      age: 36,
      subscribed: false,
      colours: ['r', 'g'],
    });
    const noDefaults: Schema = { type: 'object', properties: { x: { type: 'string' } } };
    assert.equal(applyElicitationDefaults(noDefaults, undefined), undefined);
  });

  test('is pure: the content and the schema are left as they were', () => {
    const content = { email: 'a@b.c' };
    const filled = applyElicitationDefaults(schema, content)!;
    assert.deepEqual(content, { email: 'a@b.c' });
    (filled.colours as string[]).push('b');
    assert.deepEqual((schema.properties.colours as { default: string[] }).default, ['r', 'g']);
  });

  test('a "__proto__" property name cannot change the result\'s prototype', () => {
    const hostile = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string","default":{"polluted":true}},"a":{"type":"string","default":"y"}}}',
    ) as Schema;
    const filled = applyElicitationDefaults(hostile, {})!;
    assert.equal(Object.getPrototypeOf(filled), Object.prototype);
    assert.deepEqual(filled, { a: 'y' });
  });
});
