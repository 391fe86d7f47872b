/** The benchmarks' command-line numbers, each refused with the option's name when it is not what it must be. */

/** A whole number of at least 1 (`--duration 10`). */
export function positiveWhole(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--${name}: expected a positive whole number, got ${JSON.stringify(value)}`);
  return n;
}

/** A number above 0, fractions allowed (`--minutes 0.5`). */
export function positiveNumber(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name}: expected a positive number, got ${JSON.stringify(value)}`);
  return n;
}
