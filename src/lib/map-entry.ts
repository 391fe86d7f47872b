/** The value of `key` in `map`, created with `create` and stored first when there is none. */
export function entryOf<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}
