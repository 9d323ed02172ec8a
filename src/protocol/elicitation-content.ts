import { isNumber, isObject, keyPath } from './param-checks.js';

/*
 * The content of an accepted form elicitation checked against the `requestedSchema` it answers (spec
 * 2025-11-25 and 2026-07-28, client/elicitation: a flat object of primitive properties; "servers SHOULD
 * validate received data matches the requested schema"). Checked by hand, not compiled with ajv: a schema
 * comes with each call (often built for it, and in the 2026 era read back from the sealed requestState), so
 * there is nothing to compile once, and the spec's subset is small and closed. A keyword outside the subset
 * checks nothing, as JSON Schema ignores the keywords it does not know.
 */

/** Where a value is wrong, as a path from it ('' for the value itself, `.age`, `[2]`), and how. */
export interface Fault {
  readonly at: string;
  readonly problem: string;
}

/** The string formats a form may ask for (spec: elicitation, String Schema). */
export type StringFormat = 'email' | 'uri' | 'date' | 'date-time';

/** Each format as a person is told it, and its check. */
export const STRING_FORMATS: Readonly<
  Record<StringFormat, { readonly name: string; valid(text: string): boolean }>
> = {
  email: { name: 'an email address', valid: isEmail },
  uri: { name: 'a URI', valid: isUri },
  date: { name: 'a date (YYYY-MM-DD)', valid: isDate },
  'date-time': { name: 'a date and time (e.g. 2025-11-25T09:30:00Z)', valid: isDateTime },
};

/** Choices listed in a refusal; more are counted, not listed. */
const LISTED_CHOICES = 10;

/**
 * Why an accepted form's `content` does not fit `requestedSchema`, as a path from the content
 * (`.age`, `.colors[1]`), or undefined when it fits: every `required` property is there, and each value fits
 * its property's schema. A value under a key the schema does not name must still be one a form can hold (a
 * string, number, boolean or array of strings: ElicitResult.content).
 */
export function contentFault(requestedSchema: unknown, content: Record<string, unknown>): Fault | undefined {
  const schema = isObject(requestedSchema) ? requestedSchema : undefined;
  const properties = isObject(schema?.properties) ? schema.properties : undefined;
  const required = schema?.required;
  if (Array.isArray(required)) {
    for (const name of required) {
      if (typeof name === 'string' && !Object.hasOwn(content, name)) {
        return { at: keyPath(name), problem: 'is required' };
      }
    }
  }
  for (const key of Object.keys(content)) {
    const field = properties !== undefined && Object.hasOwn(properties, key) ? properties[key] : undefined;
    const fault = fieldFault(field, content[key]);
    if (fault !== undefined) return { at: keyPath(key) + fault.at, problem: fault.problem };
  }
  return undefined;
}

/**
 * Why `value` does not fit the property schema `schema` (string with minLength, maxLength, format, pattern,
 * enum or titled oneOf; number or integer with minimum and maximum; boolean; array of enum values with
 * minItems and maxItems), or undefined when it fits. A schema that is no object, or of another type, checks
 * only that the value is one a form can hold.
 */
export function fieldFault(schema: unknown, value: unknown): Fault | undefined {
  if (!isObject(schema)) return formValueFault(value);
  switch (schema.type) {
    case 'string':
      return typeof value === 'string' ? stringFault(schema, value) : fault('must be a string');
    case 'number':
    case 'integer':
      return numberFault(schema, value);
    case 'boolean':
      return typeof value === 'boolean' ? undefined : fault('must be a boolean');
    case 'array':
      return choicesFault(schema, value);
    default:
      return formValueFault(value);
  }
}

const fault = (problem: string, at = ''): Fault => ({ at, problem });

function formValueFault(value: unknown): Fault | undefined {
  if (typeof value === 'string' || typeof value === 'boolean' || isNumber(value)) return undefined;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return undefined;
  return fault('must be a string, number, boolean or array of strings');
}

function stringFault(schema: Record<string, unknown>, text: string): Fault | undefined {
  if (!allows(schema, 'oneOf', text)) return fault(`must be one of ${choiceList(schema, 'oneOf')}`);
  const { minLength, maxLength } = schema;
  if (isNumber(minLength) || isNumber(maxLength)) {
    // JSON Schema counts characters (code points), not UTF-16 units.
    let length = 0;
    for (const _ of text) length++;
    if (isNumber(minLength) && length < minLength) return fault(`must have at least ${minLength} characters`);
    if (isNumber(maxLength) && length > maxLength) return fault(`must have at most ${maxLength} characters`);
  }
  const format = schema.format;
  if (typeof format === 'string' && Object.hasOwn(STRING_FORMATS, format)) {
    const { name, valid } = STRING_FORMATS[format as StringFormat];
    if (!valid(text)) return fault(`must be ${name}`);
  }
  const pattern = schema.pattern;
  if (typeof pattern === 'string' && !matches(pattern, text)) {
    return fault(`must match the pattern ${JSON.stringify(pattern)}`);
  }
  return undefined;
}

function numberFault(schema: Record<string, unknown>, value: unknown): Fault | undefined {
  if (!isNumber(value)) return fault(schema.type === 'integer' ? 'must be an integer' : 'must be a number');
  if (schema.type === 'integer' && !Number.isInteger(value)) return fault('must be an integer');
  const { minimum, maximum } = schema;
  if (isNumber(minimum) && value < minimum) return fault(`must be at least ${minimum}`);
  if (isNumber(maximum) && value > maximum) return fault(`must be at most ${maximum}`);
  return undefined;
}

/** A multi-select (spec 2025-11-25): an array of strings, each one of `items`' choices. */
function choicesFault(schema: Record<string, unknown>, value: unknown): Fault | undefined {
  if (!Array.isArray(value)) return fault('must be an array of strings');
  const { minItems, maxItems } = schema;
  if (isNumber(minItems) && value.length < minItems) return fault(`must have at least ${minItems} items`);
  if (isNumber(maxItems) && value.length > maxItems) return fault(`must have at most ${maxItems} items`);
  const items = isObject(schema.items) ? schema.items : undefined;
  for (let i = 0; i < value.length; i++) {
    const item = value[i];
    if (typeof item !== 'string') return fault('must be a string', `[${i}]`);
    if (items !== undefined && !allows(items, 'anyOf', item)) {
      return fault(`must be one of ${choiceList(items, 'anyOf')}`, `[${i}]`);
    }
  }
  return undefined;
}

/** Whether `value` is among the schema's `enum` and the `const`s of its titled options (each when given). */
function allows(schema: Record<string, unknown>, titled: 'oneOf' | 'anyOf', value: string): boolean {
  const values = schema.enum;
  if (Array.isArray(values) && !values.includes(value)) return false;
  const options = schema[titled];
  return !Array.isArray(options) || options.some((option) => isObject(option) && option.const === value);
}

function choiceList(schema: Record<string, unknown>, titled: 'oneOf' | 'anyOf'): string {
  const options = schema[titled];
  const values = Array.isArray(schema.enum)
    ? schema.enum
    : Array.isArray(options)
      ? options.map((option) => (isObject(option) ? option.const : undefined))
      : [];
  const listed = values.slice(0, LISTED_CHOICES).map((v) => JSON.stringify(v) ?? 'undefined');
  const more = values.length - listed.length;
  return more > 0 ? `${listed.join(', ')} (or ${more} more)` : listed.join(', ');
}

/** A pattern the server gave that is no regular expression checks nothing: the answer is not at fault. */
function matches(pattern: string, text: string): boolean {
  let re: RegExp;
  try {
    re = new RegExp(pattern, 'u');
  } catch {
    return true;
  }
  return re.test(text);
}

// ---- Formats ----

const ATEXT = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** RFC 5321 Mailbox as people write it: a dot-atom, "@", a domain name of at least two labels. */
function isEmail(text: string): boolean {
  if (text.length > 254) return false;
  const at = text.lastIndexOf('@');
  if (at < 1 || at > 64 || !ATEXT.test(text.slice(0, at))) return false;
  const labels = text.slice(at + 1).split('.');
  return labels.length >= 2 && labels.every((label) => LABEL.test(label));
}

const URI_CHARS = /^[A-Za-z][A-Za-z0-9+.-]*:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;
const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/** RFC 3986 URI: a scheme, then only the characters a URI may hold, each "%" starting an escape. */
function isUri(text: string): boolean {
  return URI_CHARS.test(text) && !BAD_ESCAPE.test(text);
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/** RFC 3339 full-date: a day that exists (the 29th of February in leap years only). */
function isDate(text: string): boolean {
  const match = DATE.exec(text);
  if (match === null) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  return day <= days;
}

/** RFC 3339 date-time: a full-date, "T", a time with seconds (60 for a leap second), and an offset. */
function isDateTime(text: string): boolean {
  const match = DATE_TIME.exec(text);
  if (match === null || !isDate(match[1])) return false;
  const [hour, minute, second] = [match[2], match[3], match[4]].map(Number);
  if (hour > 23 || minute > 59 || second > 60) return false;
  return match[6] === undefined || (Number(match[6]) <= 23 && Number(match[7]) <= 59);
}
