import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fc } from '../test-support/fuzz.js';
import { headerAnnotations } from './header-annotations.js';

function schemaWith(properties: Record<string, unknown>, extra: Record<string, unknown> = {}): unknown {
  return { type: 'object', properties, ...extra };
}

function rejects(schema: unknown, ...parts: string[]): void {
  assert.throws(
    () => headerAnnotations(schema),
    (e: unknown) => {
      assert.ok(e instanceof Error);
      for (const part of parts) assert.ok(e.message.includes(part), `"${e.message}" lacks "${part}"`);
      return true;
    },
  );
}

describe('headerAnnotations', () => {
  test('reads the spec example and nested properties chains, in document order', () => {
    const schema = schemaWith({
      region: { type: 'string', description: 'where', 'x-mcp-header': 'Region' },
      query: { type: 'string' },
      opts: {
        type: 'object',
        properties: {
          count: { type: 'integer', 'x-mcp-header': 'Count' },
          dry: { type: ['boolean', 'null'], 'x-mcp-header': 'Dry-Run' },
        },
      },
    });
    assert.deepEqual(headerAnnotations(schema), [
      { header: 'Region', path: ['region'], type: 'string' },
      { header: 'Count', path: ['opts', 'count'], type: 'integer' },
      { header: 'Dry-Run', path: ['opts', 'dry'], type: 'boolean' },
    ]);
  });

  test('a schema without annotations, or not a schema, has none', () => {
    assert.deepEqual(headerAnnotations({ type: 'object' }), []);
    assert.deepEqual(headerAnnotations(undefined), []);
    assert.deepEqual(headerAnnotations(true), []);
    assert.deepEqual(headerAnnotations(schemaWith({ a: { type: 'number' } })), []);
  });

  test('a property literally named "properties" or "items" is still a property', () => {
    const schema = schemaWith({
      properties: { type: 'object', properties: { items: { type: 'string', 'x-mcp-header': 'I' } } },
    });
    assert.deepEqual(headerAnnotations(schema), [
      { header: 'I', path: ['properties', 'items'], type: 'string' },
    ]);
  });

  test('the key inside instance data (default, const, enum, examples) is not an annotation', () => {
    const schema = schemaWith({
      o: { type: 'object', default: { 'x-mcp-header': '' }, examples: [{ 'x-mcp-header': 1 }] },
      e: { enum: [{ 'x-mcp-header': 'A' }], const: { 'x-mcp-header': 'B' } },
    });
    assert.deepEqual(headerAnnotations(schema), []);
  });

  test('empty, non-string and non-token values are refused with their location', () => {
    rejects(schemaWith({ a: { type: 'string', 'x-mcp-header': '' } }), 'must not be empty', '#/properties/a');
    rejects(schemaWith({ a: { type: 'string', 'x-mcp-header': 7 } }), 'must be a string');
    for (const bad of ['Re gion', 'Region:', 'a\r\nX-Evil: 1', 'Ré', 'a/b', '(x)', 'a"b', 'a\tb']) {
      rejects(schemaWith({ a: { type: 'string', 'x-mcp-header': bad } }), 'RFC 9110 token');
    }
    assert.equal(
      headerAnnotations(schemaWith({ a: { type: 'string', 'x-mcp-header': "!#$%&'*+-.^_`|~09az" } })).length,
      1,
    );
  });

  test('duplicates compare case-insensitively and name the first one', () => {
    const schema = schemaWith({
      a: { type: 'string', 'x-mcp-header': 'Region' },
      b: { type: 'object', properties: { c: { type: 'string', 'x-mcp-header': 'REGION' } } },
    });
    rejects(schema, 'repeats the header of #/properties/a', '#/properties/b/properties/c');
  });

  test('only string, integer and boolean properties may be mirrored', () => {
    for (const type of [
      'number',
      'object',
      'array',
      'null',
      undefined,
      ['string', 'integer'],
      ['number', 'null'],
      [],
    ]) {
      rejects(schemaWith({ a: { type, 'x-mcp-header': 'A' } }), 'type must be');
    }
    rejects(
      schemaWith({ a: { type: 'number', 'x-mcp-header': 'A' } }),
      'only integers are mirrored, not numbers',
    );
  });

  test('an annotation off a pure properties chain makes the schema invalid', () => {
    const leaf = { type: 'string', 'x-mcp-header': 'X' };
    const off: [unknown, string][] = [
      [{ type: 'string', 'x-mcp-header': 'X' }, '#:'],
      [schemaWith({ list: { type: 'array', items: leaf } }), '#/properties/list/items'],
      [schemaWith({ t: { prefixItems: [leaf] } }), '#/properties/t/prefixItems/0'],
      [schemaWith({}, { anyOf: [schemaWith({ a: leaf })] }), '#/anyOf/0/properties/a'],
      [schemaWith({}, { oneOf: [leaf] }), '#/oneOf/0'],
      [schemaWith({}, { allOf: [schemaWith({ a: leaf })] }), '#/allOf/0'],
      [schemaWith({}, { not: leaf }), '#/not'],
      [schemaWith({}, { if: schemaWith({ a: leaf }) }), '#/if'],
      // JSON Schema's `then` keyword, written as JSON would carry it.
      [
        schemaWith({}, JSON.parse('{"then":{"properties":{"a":{"type":"string","x-mcp-header":"X"}}}}')),
        '#/then',
      ],
      [schemaWith({}, { else: schemaWith({ a: leaf }) }), '#/else'],
      [schemaWith({}, { $defs: { d: leaf }, properties: { a: { $ref: '#/$defs/d' } } }), '#/$defs/d'],
      [schemaWith({}, { additionalProperties: leaf }), '#/additionalProperties'],
      [schemaWith({}, { patternProperties: { '^a': leaf } }), '#/patternProperties/^a'],
      [schemaWith({ 'a/b': { type: 'array', items: leaf } }), '#/properties/a~1b/items'],
    ];
    for (const [schema, where] of off) rejects(schema, where, 'through "properties" alone');
  });

  test('a schema nested past the depth bound is refused with a clear error, a cyclic one too', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 1000; i++) deep = { type: 'object', properties: { n: deep } };
    rejects(deep, 'nested deeper than');
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    rejects(cyclic, 'nested deeper than');
  });

  test('finds every valid annotation of a generated properties tree', () => {
    const leaf = fc.record({
      type: fc.constantFrom('string', 'integer', 'boolean'),
      annotated: fc.boolean(),
    });
    const tree = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), tie('node'), { maxKeys: 4 }),
      ),
    })).node;
    fc.assert(
      fc.property(tree, (root) => {
        let n = 0;
        const expected: { header: string; path: string[]; type: string }[] = [];
        const build = (node: unknown, path: string[]): unknown => {
          const l = node as { type?: string; annotated?: boolean };
          if (typeof l.type === 'string' && typeof l.annotated === 'boolean') {
            if (!l.annotated || path.length === 0) return { type: l.type };
            const header = 'H' + n++;
            expected.push({ header, path, type: l.type });
            return { type: l.type, 'x-mcp-header': header };
          }
          const properties: Record<string, unknown> = {};
          for (const [k, v] of Object.entries(node as Record<string, unknown>))
            properties[k] = build(v, [...path, k]);
          return { type: 'object', properties };
        };
        const schema = build(root, []);
        assert.deepEqual(headerAnnotations(schema), expected);
      }),
    );
  });

  test('never fails on hostile input with anything but an Error naming the rule', () => {
    const keyed = fc.dictionary(
      fc.constantFrom('x-mcp-header', 'properties', 'items', 'type', 'anyOf', 'a'),
      fc.anything({ maxDepth: 3 }),
    );
    fc.assert(
      fc.property(fc.oneof(fc.anything(), keyed), (schema) => {
        try {
          for (const a of headerAnnotations(schema)) {
            assert.ok(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(a.header));
            assert.ok(a.path.length > 0);
          }
        } catch (e) {
          assert.ok(e instanceof Error && e.message.startsWith('Invalid '), String(e));
        }
      }),
    );
  });
});
