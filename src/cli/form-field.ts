import { fieldFault, STRING_FORMATS } from '../protocol/elicitation-content.js';
import type { ElicitResult, PrimitiveSchemaDefinition, StringSchema } from '../protocol/types.js';

/** One value of an accepted form. */
export type FieldValue = NonNullable<ElicitResult['content']>[string];

/** One value of an enum field: what is sent, and what the person sees. */
interface Choice {
  value: string;
  title: string;
}

/** The choices of an enum field, single or multiple; undefined for a field typed freely. */
function choicesOf(schema: PrimitiveSchemaDefinition): Choice[] | undefined {
  if (schema.type === 'array') {
    const items = schema.items;
    return 'anyOf' in items
      ? items.anyOf.map((o) => ({ value: o.const, title: o.title }))
      : items.enum.map((value) => ({ value, title: value }));
  }
  if (schema.type !== 'string') return undefined;
  if ('oneOf' in schema) return schema.oneOf.map((o) => ({ value: o.const, title: o.title }));
  if ('enum' in schema) {
    const names = 'enumNames' in schema ? schema.enumNames : undefined;
    return schema.enum.map((value, i) => ({ value, title: names?.[i] ?? value }));
  }
  return undefined;
}

/**
 * The question for one field of a form, ending in ": ": its title and description, the choices of an
 * enum numbered from 1, what it takes, whether it must be given, and what Enter gives.
 */
export function fieldQuestion(key: string, schema: PrimitiveSchemaDefinition, required: boolean): string {
  const lines = [`${schema.title ?? key}${schema.description ? ` — ${schema.description}` : ''}`];
  const choices = choicesOf(schema);
  choices?.forEach((c, i) => {
    lines.push(`    ${i + 1}) ${c.title}${c.title === c.value ? '' : ` (${c.value})`}`);
  });
  const fallback = schema.default;
  const enter =
    fallback !== undefined
      ? `Enter for ${Array.isArray(fallback) ? fallback.join(', ') : String(fallback)}`
      : required
        ? 'required'
        : 'Enter to leave out';
  lines.push(`  [${takes(schema)}; ${enter}]: `);
  return lines.join('\n');
}

function takes(schema: PrimitiveSchemaDefinition): string {
  switch (schema.type) {
    case 'boolean':
      return 'yes or no';
    case 'number':
    case 'integer':
      return `${schema.type === 'integer' ? 'an integer' : 'a number'}${range(schema.minimum, schema.maximum, '')}`;
    case 'array':
      return `numbers or values above, separated by commas${range(schema.minItems, schema.maxItems, ' of them')}`;
    default: {
      if (choicesOf(schema) !== undefined) return 'a number or a value above';
      const s = schema as StringSchema;
      const what = s.format === undefined ? 'text' : STRING_FORMATS[s.format].name;
      return `${what}${range(s.minLength, s.maxLength, ' characters')}`;
    }
  }
}

function range(min: number | undefined, max: number | undefined, unit: string): string {
  if (min !== undefined && max !== undefined) return `, ${min} to ${max}${unit}`;
  if (min !== undefined) return `, at least ${min}${unit}`;
  if (max !== undefined) return `, at most ${max}${unit}`;
  return '';
}

const YES = new Set(['y', 'yes', 'true', '1']);
const NO = new Set(['n', 'no', 'false', '0']);

/**
 * The value of what the person typed for a field, spaces around it left out (not empty: Enter is the
 * caller's to interpret), or why it is not one, said so that they can type it again.
 */
export function parseField(
  schema: PrimitiveSchemaDefinition,
  typed: string,
): { value: FieldValue } | { problem: string } {
  const text = typed.trim();
  switch (schema.type) {
    case 'boolean':
      if (YES.has(text.toLowerCase())) return { value: true };
      if (NO.has(text.toLowerCase())) return { value: false };
      return { problem: 'answer yes or no' };
    case 'number':
    case 'integer': {
      const n = text === '' ? Number.NaN : Number(text);
      if (!Number.isFinite(n)) return { problem: `"${text}" is not a number` };
      return fits(schema, n);
    }
    case 'array': {
      const choices = choicesOf(schema)!;
      const picked: string[] = [];
      for (const word of text.split(',')) {
        if (word.trim() === '') continue;
        const value = choose(choices, word.trim());
        if (value === undefined) return { problem: `"${word.trim()}" is none of the choices` };
        if (picked.includes(value)) return { problem: `"${value}" is chosen twice` };
        picked.push(value);
      }
      return fits(schema, picked);
    }
    default: {
      const choices = choicesOf(schema);
      if (choices !== undefined) {
        const value = choose(choices, text);
        return value === undefined ? { problem: `"${text}" is none of the choices` } : { value };
      }
      return fits(schema, text);
    }
  }
}

/** `value` when it fits the field's schema as a server checks it (spec: elicitation), else what is wrong. */
function fits(
  schema: PrimitiveSchemaDefinition,
  value: FieldValue,
): { value: FieldValue } | { problem: string } {
  const fault = fieldFault(schema, value);
  return fault === undefined ? { value } : { problem: `it ${fault.problem}` };
}

/** The choice a word names: its value, else its number in the list, else its title (any case). */
function choose(choices: readonly Choice[], word: string): string | undefined {
  const exact = choices.find((c) => c.value === word);
  if (exact !== undefined) return exact.value;
  const n = /^\d+$/.test(word) ? Number(word) : 0;
  if (n >= 1 && n <= choices.length) return choices[n - 1].value;
  return choices.find((c) => c.title.toLowerCase() === word.toLowerCase())?.value;
}
