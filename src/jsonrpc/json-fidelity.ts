/**
 * Deeper than this, a value is refused rather than walked: the walk recurses, and JSON.parse builds values
 * nested far deeper than a call stack holds. No MCP message nests anywhere near it.
 */
const MAX_DEPTH = 1000;

/**
 * The first part of `value` that JSON text would not carry as it is, as a path and a reason
 * (`.a[2] is Infinity, not a finite number`), or undefined when there is none. JSON.stringify would write
 * a non-finite number or an array's undefined, function or symbol item as null, drop a function or symbol
 * property, and throw on a BigInt; and JSON.parse reads a number beyond ±1.8e308 (1e400) as Infinity.
 * An undefined property is fine: JSON leaves it out, and schemas read it as absent. Only objects and
 * arrays are descended into and nothing is allocated unless a problem is found, so a value without one
 * costs a type test per node.
 */
export function jsonProblem(value: unknown): string | undefined {
  return problemAt(value, 0);
}

function problemAt(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'undefined':
      return undefined;
    case 'number':
      if (Number.isFinite(value)) return undefined;
      return Number.isNaN(value)
        ? ' is NaN, not a number JSON has'
        : ` is ${value}, not a finite number (JSON has none: 1e400 or any number beyond ±1.8e308 overflows)`;
    case 'bigint':
      return ` is a BigInt (${value}n), which JSON has no form for`;
    case 'object':
      if (value === null) return undefined;
      if (depth === MAX_DEPTH) return ` is nested more than ${MAX_DEPTH} levels deep`;
      return Array.isArray(value) ? itemProblem(value, depth + 1) : propertyProblem(value, depth + 1);
    default:
      return ` is a ${typeof value}, which JSON cannot carry`;
  }
}

function itemProblem(array: unknown[], depth: number): string | undefined {
  for (let i = 0; i < array.length; i++) {
    // Indexed, not for-in: a hole reads as undefined here, and JSON.stringify writes it as null.
    const item = array[i];
    const problem =
      item === undefined ? ' is undefined, which JSON writes as null in an array' : problemAt(item, depth);
    if (problem !== undefined) return `[${i}]${problem}`;
  }
  return undefined;
}

function propertyProblem(object: object, depth: number): string | undefined {
  // for-in, not Object.keys: it allocates nothing. Its inherited keys are none for parsed JSON, and for a
  // handler's value at worst a needless look; it skips symbol keys, which JSON skips too.
  for (const key in object) {
    const problem = problemAt((object as Record<string, unknown>)[key], depth);
    if (problem !== undefined) return `.${key}${problem}`;
  }
  return undefined;
}
