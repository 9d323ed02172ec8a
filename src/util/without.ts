/** What `without` needs of a map: Map and SmallMap both are one. */
interface Table<K> {
  readonly size: number;
  has(key: K): boolean;
  delete(key: K): boolean;
}

/**
 * Deletes `key` from `map` and returns the map, or undefined once it is empty: a session or stream table holds a
 * map only while something is in it, since most sessions sit idle and an empty Map still costs ~180 bytes.
 *
 * A map whose last key goes is dropped with that key still in it: deleting the last entry would have V8 shrink
 * the map's table, an allocation thrown away with the map. So a caller must not read the map afterwards through
 * another reference.
 */
export function without<K, M extends Table<K>>(map: M, key: K): M | undefined {
  if (map.size === 1 && map.has(key)) return undefined;
  map.delete(key);
  return map.size === 0 ? undefined : map;
}
