/**
 * The object without its keys whose value is undefined: "not given" in a partial change, as opposed
 * to a value to write (null included).
 */
export function definedOnly<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}
