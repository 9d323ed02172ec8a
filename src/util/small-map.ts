const EMPTY: unique symbol = Symbol('empty');
const NONE: readonly never[] = [];

/** Map's key equality (SameValueZero): NaN is NaN, and 0 is -0. */
const same = (a: unknown, b: unknown) => a === b || (Number.isNaN(a) && Number.isNaN(b));

/**
 * A map made for the tables that hold one entry nearly always: a session's requests in flight, the stream that
 * owes each one's answer, its live streams. Its first entry sits in two fields; a Map is made only for the entries
 * beside it. Such a table is made and dropped with each request, and a Map costs its hash table's allocation when
 * made and again when its last entry is deleted (V8 shrinks it).
 *
 * `values` lists the entry in the fields first, then the others in the order they were set.
 */
export class SmallMap<K, V> {
  private firstKey: K | typeof EMPTY;
  private firstValue: V | undefined;
  private rest: Map<K, V> | undefined;

  constructor(key: K, value: V) {
    this.firstKey = key;
    this.firstValue = value;
  }

  get size(): number {
    return (this.firstKey === EMPTY ? 0 : 1) + (this.rest?.size ?? 0);
  }

  get(key: K): V | undefined {
    if (this.firstKey !== EMPTY && same(this.firstKey, key)) return this.firstValue;
    return this.rest?.get(key);
  }

  has(key: K): boolean {
    return (this.firstKey !== EMPTY && same(this.firstKey, key)) || this.rest?.has(key) === true;
  }

  set(key: K, value: V): this {
    if (this.firstKey !== EMPTY && same(this.firstKey, key)) this.firstValue = value;
    else if (this.rest?.has(key)) this.rest.set(key, value);
    else if (this.firstKey === EMPTY) {
      this.firstKey = key;
      this.firstValue = value;
    } else {
      this.rest ??= new Map();
      this.rest.set(key, value);
    }
    return this;
  }

  delete(key: K): boolean {
    if (this.firstKey !== EMPTY && same(this.firstKey, key)) {
      this.firstKey = EMPTY;
      this.firstValue = undefined;
      return true;
    }
    return this.rest?.delete(key) === true;
  }

  /**
   * Every value, in iteration order: a copy, so the caller may change the map as it goes; an empty map allocates
   * nothing (a generator would cost each request's teardown one, for a table that is nearly always empty by then).
   */
  values(): readonly V[] {
    const rest = this.rest;
    if (this.firstKey === EMPTY && (rest === undefined || rest.size === 0)) return NONE;
    const values: V[] = this.firstKey === EMPTY ? [] : [this.firstValue as V];
    if (rest !== undefined) for (const value of rest.values()) values.push(value);
    return values;
  }
}
