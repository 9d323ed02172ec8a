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
      const what = s.format === undefined ? 'text' : FORMATS[s.format].name;
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

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** The string formats a form may ask for (spec: elicitation), as the person is told them and as checked. */
const FORMATS: Record<
  NonNullable<StringSchema['format']>,
  { name: string; valid: (t: string) => boolean }
> = {
  email: { name: 'an email address', valid: (t) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(t) },
  uri: { name: 'a URI', valid: (t) => URL.canParse(t) },
  date: { name: 'a date (YYYY-MM-DD)', valid: (t) => DATE.test(t) && isCalendarDate(t) },
  'date-time': {
    name: 'a date and time (e.g. 2025-11-25T09:30:00Z)',
    valid: (t) => DATE_TIME.test(t) && isCalendarDate(t.slice(0, 10)) && !Number.isNaN(Date.parse(t)),
  },
};

function isCalendarDate(text: string): boolean {
  const [, y, m, d] = DATE.exec(text)!.map(Number);
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
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
      if (schema.type === 'integer' && !Number.isInteger(n)) return { problem: `${text} is not an integer` };
      if (schema.minimum !== undefined && n < schema.minimum)
        return { problem: `the least is ${schema.minimum}` };
      if (schema.maximum !== undefined && n > schema.maximum)
        return { problem: `the most is ${schema.maximum}` };
      return { value: n };
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
      if (schema.minItems !== undefined && picked.length < schema.minItems)
        return { problem: `choose at least ${schema.minItems}` };
      if (schema.maxItems !== undefined && picked.length > schema.maxItems)
        return { problem: `choose at most ${schema.maxItems}` };
      return { value: picked };
    }
    default: {
      const choices = choicesOf(schema);
      if (choices !== undefined) {
        const value = choose(choices, text);
        return value === undefined ? { problem: `"${text}" is none of the choices` } : { value };
      }
      return checkString(schema as StringSchema, text);
    }
  }
}

/** The choice a word names: its value, else its number in the list, else its title (any case). */
function choose(choices: readonly Choice[], word: string): string | undefined {
  const exact = choices.find((c) => c.value === word);
  if (exact !== undefined) return exact.value;
  const n = /^\d+$/.test(word) ? Number(word) : 0;
  if (n >= 1 && n <= choices.length) return choices[n - 1].value;
  return choices.find((c) => c.title.toLowerCase() === word.toLowerCase())?.value;
}

/** Its length counts characters (code points), as JSON Schema does. */
function checkString(schema: StringSchema, text: string): { value: string } | { problem: string } {
  const length = [...text].length;
  if (schema.minLength !== undefined && length < schema.minLength)
    return { problem: `at least ${schema.minLength} characters, please` };
  if (schema.maxLength !== undefined && length > schema.maxLength)
    return { problem: `at most ${schema.maxLength} characters, please` };
  if (schema.format !== undefined && !FORMATS[schema.format].valid(text))
    return { problem: `that is not ${FORMATS[schema.format].name}` };
  if (schema.pattern !== undefined && !matches(schema.pattern, text))
    return { problem: `that does not match the pattern ${schema.pattern}` };
  return { value: text };
}

/** A pattern the server gave that is no valid regular expression checks nothing. */
function matches(pattern: string, text: string): boolean {
  let re: RegExp;
  try {
    re = new RegExp(pattern, 'u');
  } catch {
    return true;
  }
  return re.test(text);
}
