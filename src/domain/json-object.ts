/** A JSON object as JSON.parse makes it: an object that is neither null nor an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
