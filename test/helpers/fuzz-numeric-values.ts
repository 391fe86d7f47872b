import fc from 'fast-check';
import type { Json } from './fuzz-ingest-bodies.js';
import { numericStringArb } from './fuzz-rule-bodies.js';

/**
 * Values for a field that rules compare numerically, from the harmless to the hostile (a long run of
 * digits that ends in a letter made the old numeric-string check backtrack quadratically), and the
 * documented meaning of the numeric operators as an independent model: a number, or a string written
 * as JSON writes a decimal (optional sign, `5.` and `.5`, exponent) whose value is finite; anything
 * else is not a number and makes a numeric condition false.
 */

/** A value, as a small recipe (what a failing case prints) rather than a 200,000-character string. */
export type NumericSpec =
  | { readonly kind: 'digits'; readonly n: number; readonly digit: string; readonly sign: string; readonly tail: string }
  | { readonly kind: 'value'; readonly value: Json };

export const numericSpecArb: fc.Arbitrary<NumericSpec> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('digits' as const),
      n: fc.oneof(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 1, max: 60_000 }), fc.constantFrom(50_000, 200_000)),
      digit: fc.constantFrom(...'0123456789'),
      sign: fc.constantFrom('', '-', '+'),
      tail: fc.constantFrom('', 'a', '.', '.5', 'e', 'e5', 'e+', '.5a', ' ', 'x', '..', 'e-7'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.integer(),
        fc.constantFrom(1, 100, 101, -1, 0, 5, 4.999, 9.99, 10, 1e300, 5e-324),
        numericStringArb,
        fc.constantFrom('1', '1.0', '01', '1e0', '+1', '100', '100.0001', '.5', '5.', '1e400', '-1e400', 'Infinity', 'NaN', '0x10', ' 1', '1 ', '', '１', '1_0', '5e-1'),
        fc.constantFrom<Json>(true, false, null, [], ['1'], [1], {}, { 1: 1 }, [[1]], 'true'),
      )
      .map((value) => ({ kind: 'value' as const, value: value })),
  },
);

export function numericSpecValue(spec: NumericSpec): Json {
  return spec.kind === 'value' ? spec.value : spec.sign + spec.digit.repeat(spec.n) + spec.tail;
}

const isDigit = (ch: string | undefined): boolean => ch !== undefined && ch >= '0' && ch <= '9';

/** A decimal as JSON writes numbers, plus a leading `+`, `5.` and `.5`. Scanned once, left to right. */
function isDecimalText(text: string): boolean {
  let i = 0;
  if (text[i] === '+' || text[i] === '-') i++;
  const intStart = i;
  while (isDigit(text[i])) i++;
  const intDigits = i - intStart;
  let fractionDigits = 0;
  if (text[i] === '.') {
    i++;
    const fractionStart = i;
    while (isDigit(text[i])) i++;
    fractionDigits = i - fractionStart;
  }
  if (intDigits === 0 && fractionDigits === 0) return false;
  if (text[i] === 'e' || text[i] === 'E') {
    i++;
    if (text[i] === '+' || text[i] === '-') i++;
    const exponentStart = i;
    while (isDigit(text[i])) i++;
    if (i === exponentStart) return false;
  }
  return i === text.length;
}

/** The number a value stands for under the numeric operators, or undefined (overflow included). */
export function numericOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || !isDecimalText(value)) return undefined;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : undefined;
}

/** `equals` with a number as the rule's value: numbers and numeric strings by value, nothing else. */
export function equalsNumber(actual: unknown, expected: number): boolean {
  if (typeof actual === 'number') return actual === expected;
  if (typeof actual === 'string') return numericOf(actual) === expected;
  return false;
}
