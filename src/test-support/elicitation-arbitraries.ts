import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { fc } from './fuzz.js';

/*
 * Property-test material for elicitation answers: form schemas of the spec's restricted subset (2025-11-25,
 * client/elicitation), content generated to fit one, and an independent judge of whether content fits (ajv,
 * as a full JSON Schema validator, told nothing of formats).
 */

export type FormSchema = {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
};

/**
 * Property names, among them ones that are no identifier and ones Object.prototype has; never "" (ajv 8.20, the
 * judge, ignores `required: [""]`).
 */
const propertyName = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('name', 'age', 'email', 'colors', 'ok', 'when') },
  { weight: 1, arbitrary: fc.constantFrom('favourite colour', 'constructor', 'toString', 'a.b', ' ') },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 6 }).filter((s) => s !== '__proto__') },
);

const bounds = (max: number) =>
  fc
    .tuple(fc.option(fc.nat({ max }), { nil: undefined }), fc.option(fc.nat({ max }), { nil: undefined }))
    .map(([a, b]) =>
      a !== undefined && b !== undefined ? [Math.min(a, b), Math.max(a, b)] : ([a, b] as const),
    );

const choices = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 5 });

const plainString = fc
  .record({ lengths: bounds(6), lowercase: fc.boolean(), title: fc.option(fc.string(), { nil: undefined }) })
  .map(({ lengths: [minLength, maxLength], lowercase, title }) => ({
    type: 'string',
    ...(title === undefined ? {} : { title }),
    ...(minLength === undefined ? {} : { minLength }),
    ...(maxLength === undefined ? {} : { maxLength }),
    ...(lowercase ? { pattern: '^[a-z]*$' } : {}),
  }));

const formatted = fc
  .constantFrom('email', 'uri', 'date', 'date-time')
  .map((format) => ({ type: 'string', format }));

const singleSelect = fc.oneof(
  choices.map((values) => ({ type: 'string', enum: values, default: values[0] })),
  choices.map((values) => ({ type: 'string', oneOf: values.map((v) => ({ const: v, title: `T ${v}` })) })),
);

const numeric = fc
  .record({
    type: fc.constantFrom('number', 'integer'),
    range: bounds(100),
    shift: fc.integer({ min: -50, max: 0 }),
  })
  .map(({ type, range: [min, max], shift }) => ({
    type,
    ...(min === undefined ? {} : { minimum: min + shift }),
    ...(max === undefined ? {} : { maximum: max + shift }),
  }));

const multiSelect = fc
  .record({ values: choices, titled: fc.boolean(), counts: bounds(5) })
  .map(({ values, titled, counts: [minItems, maxItems] }) => ({
    type: 'array',
    ...(minItems === undefined ? {} : { minItems }),
    ...(maxItems === undefined ? {} : { maxItems }),
    items: titled
      ? { anyOf: values.map((v) => ({ const: v, title: v.toUpperCase() })) }
      : { type: 'string', enum: values },
  }));

/** One property of a form: string (plain, formatted, single-select), number, integer, boolean, multi-select. */
export const propertySchema: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  plainString,
  formatted,
  singleSelect,
  numeric,
  fc.constant({ type: 'boolean', default: false }),
  multiSelect,
);

/** A `requestedSchema` of the spec's subset, with some of its properties required. */
export const formSchema: fc.Arbitrary<FormSchema> = fc
  .dictionary(propertyName, propertySchema, { maxKeys: 5 })
  .chain((properties) =>
    fc.subarray(Object.keys(properties)).map((required) => {
      const schema: FormSchema = { type: 'object', properties };
      if (required.length > 0) schema.required = required;
      return schema;
    }),
  );

/** The `const`s or `enum` a select offers. */
function offered(schema: Record<string, unknown>): string[] {
  const options = (schema.oneOf ?? schema.anyOf) as { const: string }[] | undefined;
  return (schema.enum as string[] | undefined) ?? options!.map((o) => o.const);
}

const isoDate = fc.date({
  min: new Date('0001-01-01T00:00:00Z'),
  max: new Date('9999-12-31T23:59:59Z'),
  noInvalidDate: true,
});

/** A value that fits one property schema of `propertySchema`. */
export function fittingValue(schema: Record<string, unknown>): fc.Arbitrary<unknown> {
  switch (schema.type) {
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: (schema.minimum as number) ?? -1e6, max: (schema.maximum as number) ?? 1e6 });
    case 'number':
      return fc.double({
        min: (schema.minimum as number) ?? -1e6,
        max: (schema.maximum as number) ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'array': {
      const items = schema.items as Record<string, unknown>;
      return fc.array(fc.constantFrom(...offered(items)), {
        minLength: (schema.minItems as number) ?? 0,
        maxLength: (schema.maxItems as number) ?? 5,
      });
    }
    default:
      break;
  }
  if (schema.enum !== undefined || schema.oneOf !== undefined) return fc.constantFrom(...offered(schema));
  switch (schema.format) {
    case 'email':
      return fc.emailAddress();
    case 'uri':
      return fc.webUrl({ withQueryParameters: true, withFragments: true });
    case 'date':
      return isoDate.map((d) => d.toISOString().slice(0, 10));
    case 'date-time':
      return fc
        .tuple(isoDate, fc.constantFrom('Z', '+01:00', '-09:30', 'z'))
        .map(([d, offset]) => d.toISOString().slice(0, 19) + offset);
    default:
      break;
  }
  const minLength = (schema.minLength as number) ?? 0;
  const maxLength = (schema.maxLength as number) ?? 8;
  // One unit is one code point (fast-check's 'binary'), so the length is the one JSON Schema counts.
  return schema.pattern === undefined
    ? fc.string({ unit: 'binary', minLength, maxLength })
    : fc.string({ unit: fc.constantFrom(...'abcxyz'), minLength, maxLength });
}

/** Content that fits `schema`: every required property, some optional ones. */
export function fittingContent(schema: FormSchema): fc.Arbitrary<Record<string, unknown>> {
  const required = new Set(schema.required ?? []);
  const entries = Object.entries(schema.properties).map(([name, property]) =>
    required.has(name)
      ? fittingValue(property).map((v) => [name, v] as const)
      : fc.option(fittingValue(property), { nil: undefined }).map((v) => [name, v] as const),
  );
  return fc.tuple(...entries).map((pairs) => {
    const content: Record<string, unknown> = {};
    for (const [name, value] of pairs) if (value !== undefined) content[name] = value;
    return content;
  });
}

// ownProperties: a name Object.prototype has ("constructor") is no value of the content.
const ajv = new Ajv2020({ strict: false, validateFormats: false, ownProperties: true });

/**
 * Whether content fits `schema` as a full JSON Schema validator judges it (formats aside), a value under a
 * name the schema lacks being one a form can hold (ElicitResult.content).
 */
export function judge(schema: FormSchema): ValidateFunction {
  const check = ajv.compile({
    ...schema,
    additionalProperties: {
      anyOf: [
        { type: 'string' },
        { type: 'number' },
        { type: 'boolean' },
        { type: 'array', items: { type: 'string' } },
      ],
    },
  });
  ajv.removeSchema();
  return check;
}

/** True when the schema asks a format of one of its properties: the judge does not check formats. */
export const hasFormat = (schema: FormSchema): boolean =>
  Object.values(schema.properties).some((p) => p.format !== undefined);

/** Any JSON value, with objects whose keys are the schema's names, Object.prototype's, and a few others. */
export const anyContent: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 1, arbitrary: fc.jsonValue() },
  {
    weight: 4,
    arbitrary: fc.dictionary(
      fc.oneof(propertyName, fc.constantFrom('__proto__', 'hasOwnProperty')),
      fc.oneof(
        fc.jsonValue({ maxDepth: 1 }),
        fc.string({ maxLength: 8 }),
        fc.integer({ min: -200, max: 200 }),
        fc.array(fc.string({ maxLength: 5 }), { maxLength: 4 }),
      ),
      { maxKeys: 6 },
    ),
  },
);
