import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';
import {
  type CompiledSchema,
  compileSchema,
  EMPTY_OBJECT_SCHEMA,
  type StandardSchemaV1,
  type ValidationOutcome,
} from './schema.js';

/** The outcome of a validation that must be synchronous (the hot path allocates no promise). */
function syncValidate(schema: CompiledSchema, value: unknown): ValidationOutcome {
  const outcome = schema.validate(value);
  assert.ok(!(outcome instanceof Promise), 'validation should be synchronous');
  return outcome;
}

function refusal(schema: CompiledSchema, value: unknown): string {
  const outcome = syncValidate(schema, value);
  assert.equal(outcome.ok, false, `expected ${JSON.stringify(value)} to be refused`);
  return (outcome as { message: string }).message;
}

describe('JSON Schema 2020-12', () => {
  const schema = {
    type: 'object',
    $defs: {
      point: {
        type: 'object',
        properties: { x: { type: 'number' }, y: { type: 'number' } },
        required: ['x', 'y'],
        additionalProperties: false,
      },
    },
    properties: {
      name: { type: 'string' },
      at: { $ref: '#/$defs/point' },
      tags: { type: 'array', items: { type: 'string' } },
      mode: { enum: ['fast', 'slow'] },
      'odd key': { type: 'integer' },
    },
    required: ['name'],
    additionalProperties: false,
  };
  const compiled = compileSchema(schema, 'input');

  test('accepts a valid value and hands it through unchanged', () => {
    const args = { name: 'n', at: { x: 1, y: 2 }, tags: ['a'], mode: 'fast' };
    const outcome = syncValidate(compiled, args);
    assert.deepEqual(outcome, { ok: true, value: args });
    assert.equal((outcome as { value: unknown }).value, args);
  });

  test('every invalid argument is named in one refusal, not one at a time', () => {
    assert.equal(
      refusal(compiled, { name: 3, at: { x: '1' }, mode: 'medium', extra: true }),
      'arguments.extra: is not allowed; arguments.name: must be string; arguments.at.y: is required; ' +
        'arguments.at.x: must be number; arguments.mode: must be one of ["fast","slow"]',
    );
    const listed = refusal(compiled, { name: 'n', tags: Array.from({ length: 14 }, (_, i) => i) });
    assert.match(
      listed,
      /^arguments\.tags\[0\]: must be string; (arguments\.tags\[\d+\]: must be string; ){9}and 4 more$/,
    );
  });

  test('a refused value too large to list is reported by its first problem, said so', () => {
    // A million wrong items: listing each would cost seconds and hundreds of MB; the count stops past 1,000.
    const message = refusal(compiled, { name: 'n', tags: new Array(1_000_000).fill(1) });
    assert.equal(
      message,
      'arguments.tags[0]: must be string; and perhaps more (a value this large is reported by its first problem)',
    );
    // 1,000 values in all (the object, its two properties, 997 items): every problem is counted.
    const atTheBound = refusal(compiled, { name: 'n', tags: new Array(997).fill(1) });
    assert.match(atTheBound, /; and 987 more$/);
  });

  test('refusals name the failing field from the arguments root', () => {
    assert.equal(refusal(compiled, { name: 'n', at: { x: '1', y: 2 } }), 'arguments.at.x: must be number');
    assert.equal(refusal(compiled, { name: 'n', at: { x: 1 } }), 'arguments.at.y: is required');
    assert.equal(
      refusal(compiled, { name: 'n', at: { x: 1, y: 2, z: 3 } }),
      'arguments.at.z: is not allowed',
    );
    assert.equal(refusal(compiled, { name: 'n', extra: true }), 'arguments.extra: is not allowed');
    assert.equal(refusal(compiled, {}), 'arguments.name: is required');
    assert.equal(refusal(compiled, { name: 'n', tags: ['a', 2] }), 'arguments.tags[1]: must be string');
    assert.equal(
      refusal(compiled, { name: 'n', mode: 'medium' }),
      'arguments.mode: must be one of ["fast","slow"]',
    );
    assert.equal(refusal(compiled, { name: 'n', 'odd key': 1.5 }), 'arguments["odd key"]: must be integer');
    assert.equal(refusal(compiled, [1]), 'arguments: must be object');
  });

  test('recursive $ref through $defs', () => {
    const tree = compileSchema(
      {
        type: 'object',
        $defs: {
          node: {
            type: 'object',
            properties: { children: { type: 'array', items: { $ref: '#/$defs/node' } } },
          },
        },
        properties: { root: { $ref: '#/$defs/node' } },
      },
      'input',
    );
    assert.equal(syncValidate(tree, { root: { children: [{ children: [] }] } }).ok, true);
    assert.equal(
      refusal(tree, { root: { children: [{ children: [1] }] } }),
      'arguments.root.children[0].children[0]: must be object',
    );
  });

  test('publishes the schema verbatim', () => {
    const given = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { id: { type: 'string', minLength: 1 } },
      properties: { id: { $ref: '#/$defs/id' } },
      additionalProperties: false,
    };
    const copy = structuredClone(given);
    const published = compileSchema(given, 'input').json;
    assert.equal(published, given);
    assert.deepEqual(published, copy);
  });

  test('the same schema object compiles once', () => {
    assert.equal(compileSchema(schema, 'input'), compiled);
    // The root label differs, so each kind has its own compiled schema.
    const asOutput = compileSchema(schema, 'output');
    assert.notEqual(asOutput, compiled);
    assert.equal(compileSchema(schema, 'output'), asOutput);
    assert.equal(refusal(asOutput, {}), 'structuredContent.name: is required');
  });

  test('schemas of different tools may share an $id, even after one was refused', () => {
    const invalid = {
      $id: 'https://example.com/tool.json',
      type: 'object',
      properties: { a: { type: 'integr' } },
    };
    assert.throws(() => compileSchema(invalid, 'input'), /not a valid JSON Schema/);
    const a = compileSchema(
      { $id: 'https://example.com/tool.json', type: 'object', required: ['a'] },
      'input',
    );
    const b = compileSchema(
      { $id: 'https://example.com/tool.json', type: 'object', required: ['b'] },
      'input',
    );
    assert.equal(refusal(a, {}), 'arguments.a: is required');
    assert.equal(refusal(b, {}), 'arguments.b: is required');
  });

  test('formats are not validated', () => {
    const email = compileSchema(
      { type: 'object', properties: { to: { type: 'string', format: 'email' } } },
      'input',
    );
    assert.equal(syncValidate(email, { to: 'not an address' }).ok, true);
  });
});

describe('draft-07', () => {
  test('a schema naming draft-07 is validated as draft-07', () => {
    // Array-form `items` (a tuple) is draft-07 only: 2020-12 would refuse this schema.
    const compiled = compileSchema(
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        definitions: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } },
        properties: { pair: { $ref: '#/definitions/pair' } },
        required: ['pair'],
      },
      'input',
    );
    assert.equal(syncValidate(compiled, { pair: ['a', 1] }).ok, true);
    assert.equal(refusal(compiled, { pair: ['a', 'b'] }), 'arguments.pair[1]: must be number');
  });

  test('an unsupported dialect is refused at compile time, naming the supported ones', () => {
    assert.throws(
      () => compileSchema({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' }, 'input'),
      /inputSchema names an unsupported \$schema .*draft-04.*2020-12.*draft-07/,
    );
  });
});

describe('refused at compile time', () => {
  test('a schema that does not describe an object', () => {
    assert.throws(
      () => compileSchema({ type: 'string' }, 'input'),
      /inputSchema must describe an object.*"string"/,
    );
    assert.throws(() => compileSchema({}, 'output'), /outputSchema must describe an object.*no "type"/);
    assert.throws(() => compileSchema([] as never, 'input'), /inputSchema must be a JSON Schema object/);
    assert.throws(() => compileSchema(null as never, 'input'), /inputSchema must be a JSON Schema object/);
    const union = z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]);
    assert.throws(() => compileSchema(union, 'input'), /inputSchema must describe an object/);
  });

  test('an invalid JSON Schema', () => {
    assert.throws(
      () => compileSchema({ type: 'object', properties: { a: { type: 'integr' } } }, 'input'),
      /inputSchema is not a valid JSON Schema: schema is invalid/,
    );
    assert.throws(
      () => compileSchema({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }, 'input'),
      /inputSchema is not a valid JSON Schema: .*#\/\$defs\/missing/,
    );
  });
});

describe('arguments omitted', () => {
  test('an input schema validates undefined as {}', () => {
    assert.deepEqual(syncValidate(compileSchema(EMPTY_OBJECT_SCHEMA, 'input'), undefined), {
      ok: true,
      value: {},
    });
    const needsA = compileSchema({ type: 'object', required: ['a'] }, 'input');
    assert.equal(refusal(needsA, undefined), 'arguments.a: is required');
    assert.deepEqual(
      syncValidate(compileSchema(z.object({ a: z.string().optional() }), 'input'), undefined),
      {
        ok: true,
        value: {},
      },
    );
  });

  test('an output schema does not: missing structuredContent is refused', () => {
    assert.equal(
      refusal(compileSchema({ type: 'object' }, 'output'), undefined),
      'structuredContent: must be object',
    );
  });

  test('EMPTY_OBJECT_SCHEMA is a frozen object schema accepting any object', () => {
    assert.ok(Object.isFrozen(EMPTY_OBJECT_SCHEMA));
    const compiled = compileSchema(EMPTY_OBJECT_SCHEMA, 'input');
    assert.deepEqual(compiled.json, { type: 'object' });
    assert.equal(syncValidate(compiled, { any: 1 }).ok, true);
    assert.equal(refusal(compiled, 'x'), 'arguments: must be object');
  });
});

describe('zod 4', () => {
  test('converted to the JSON Schema of its input and validated by zod', () => {
    const compiled = compileSchema(z.object({ a: z.number(), b: z.string().optional() }), 'input');
    assert.deepEqual(compiled.json, {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'string' } },
      required: ['a'],
    });
    assert.deepEqual(syncValidate(compiled, { a: 1 }), { ok: true, value: { a: 1 } });
    assert.equal(
      refusal(compiled, { a: 'x' }),
      'arguments.a: Invalid input: expected number, received string',
    );
  });

  test('the handler gets the parsed value of a coercing, defaulting, transforming schema', () => {
    const compiled = compileSchema(
      z.object({
        n: z.coerce.number(),
        d: z.string().default('x'),
        t: z.string().transform((s) => s.length),
      }),
      'input',
    );
    assert.deepEqual((compiled.json.properties as Record<string, unknown>).n, { type: 'number' });
    assert.deepEqual(syncValidate(compiled, { n: '3', t: 'abc' }), {
      ok: true,
      value: { n: 3, d: 'x', t: 3 },
    });
  });

  test('an output schema reports from the structuredContent root', () => {
    const compiled = compileSchema(z.object({ total: z.number() }), 'output');
    assert.equal(compiled.json.type, 'object');
    assert.equal(
      refusal(compiled, { total: '3' }),
      'structuredContent.total: Invalid input: expected number, received string',
    );
  });

  test('lists every problem, up to ten, and counts the rest', () => {
    const names = 'abcdefghijkl'.split('');
    const compiled = compileSchema(z.object(Object.fromEntries(names.map((n) => [n, z.number()]))), 'input');
    const message = refusal(compiled, {});
    const listed = names.slice(0, 10).map((n) => `arguments\\.${n}: [^;]*`);
    assert.match(message, new RegExp(`^${listed.join('; ')}; and 2 more$`));
  });

  test('an output that cannot be expressed in JSON Schema asks for one alongside', () => {
    const transformed = z.object({ t: z.string().transform((s) => s.length) });
    assert.throws(
      () => compileSchema(transformed, 'output'),
      /outputSchema: this zod schema cannot be converted to JSON Schema \(.*\); pass the JSON Schema .*`jsonSchema`/,
    );
    const json = { type: 'object', properties: { t: { type: 'string' } } };
    const compiled = compileSchema(transformed, 'output', json);
    assert.equal(compiled.json, json);
    assert.deepEqual(syncValidate(compiled, { t: 'abcd' }), { ok: true, value: { t: 4 } });
  });

  test('an async refinement makes validation asynchronous', async () => {
    const compiled = compileSchema(
      z.object({ code: z.string().refine(async (s) => s === 'ok', 'wrong code') }),
      'input',
    );
    const pending = compiled.validate({ code: 'no' });
    assert.ok(pending instanceof Promise);
    assert.deepEqual(await pending, { ok: false, message: 'arguments.code: wrong code' });
    assert.deepEqual(await compiled.validate({ code: 'ok' }), { ok: true, value: { code: 'ok' } });
  });
});

describe('valibot', () => {
  const schema = v.object({ a: v.number() });

  test('without Standard JSON Schema it is refused with what to do', () => {
    assert.throws(
      () => compileSchema(schema, 'input'),
      /inputSchema: this valibot schema offers no JSON Schema conversion .*`jsonSchema`.*toStandardJsonSchema\(\) from @valibot\/to-json-schema/,
    );
  });

  test('with its JSON Schema given alongside, valibot validates', () => {
    const json = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] };
    const compiled = compileSchema(schema, 'input', json);
    assert.equal(compiled.json, json);
    assert.deepEqual(syncValidate(compiled, { a: 1 }), { ok: true, value: { a: 1 } });
    assert.match(
      refusal(compiled, { a: 'x' }),
      /^arguments\.a: Invalid type: Expected number but received "x"$/,
    );
  });
});

describe('valibot through @valibot/to-json-schema', () => {
  test('toStandardJsonSchema() makes a valibot schema publishable and validating', () => {
    const compiled = compileSchema(toStandardJsonSchema(v.object({ a: v.number() })), 'input');
    assert.equal(compiled.json.type, 'object');
    assert.deepEqual((compiled.json.properties as Record<string, unknown>).a, { type: 'number' });
    assert.deepEqual(syncValidate(compiled, { a: 1 }), { ok: true, value: { a: 1 } });
    assert.match(refusal(compiled, { a: 'x' }), /^arguments\.a: /);
  });

  test('every invalid argument in one refusal', () => {
    const compiled = compileSchema(toStandardJsonSchema(v.object({ a: v.number(), b: v.string() })), 'input');
    assert.match(refusal(compiled, { a: 'x', b: 1 }), /^arguments\.a: [^;]+; arguments\.b: [^;]+$/);
  });
});

describe('arktype', () => {
  test('publishes its JSON Schema and validates with its own rules', () => {
    const compiled = compileSchema(type({ name: 'string', 'age?': 'number.integer >= 0' }), 'input');
    assert.equal(compiled.json.type, 'object');
    assert.deepEqual(compiled.json.required, ['name']);
    assert.deepEqual(syncValidate(compiled, { name: 'Ada', age: 36 }), {
      ok: true,
      value: { name: 'Ada', age: 36 },
    });
    assert.match(refusal(compiled, { name: 'Ada', age: -1 }), /^arguments\.age: /);
    assert.match(refusal(compiled, {}), /name/);
    assert.match(refusal(compiled, { name: 1, age: -1 }), /^arguments\.name: [^;]+; arguments\.age: [^;]+$/);
  });
});

describe('any Standard Schema', () => {
  // A hand-written Standard Schema that validates asynchronously and implements Standard JSON Schema.
  const json = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
  const asyncSchema: StandardSchemaV1 = {
    '~standard': {
      version: 1,
      vendor: 'test',
      jsonSchema: { input: () => json, output: () => json },
      validate: async (value) => {
        const id = (value as { id?: unknown }).id;
        return typeof id === 'string'
          ? { value: { id: id.toUpperCase() } }
          : { issues: [{ message: 'expected a string', path: [{ key: 'id' }] }] };
      },
    },
  };

  test('an async validator resolves to an outcome', async () => {
    const compiled = compileSchema(asyncSchema, 'input');
    assert.equal(compiled.json, json);
    const pending = compiled.validate({ id: 'a' });
    assert.ok(pending instanceof Promise);
    assert.deepEqual(await pending, { ok: true, value: { id: 'A' } });
    assert.deepEqual(await compiled.validate({}), { ok: false, message: 'arguments.id: expected a string' });
  });

  test('one without conversion points at Standard JSON Schema', () => {
    const bare: StandardSchemaV1 = {
      '~standard': { version: 1, vendor: 'other', validate: (value) => ({ value }) },
    };
    assert.throws(
      () => compileSchema(bare, 'input'),
      /implements Standard JSON Schema \(https:\/\/standardschema\.dev\)/,
    );
  });
});
