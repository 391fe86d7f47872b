import { describe, expect, it } from 'vitest';
import { isWellFormedUnicode } from './unicode.js';

describe('isWellFormedUnicode', () => {
  it.each([
    ['', 'the empty string'],
    ['checkout.completed', 'ASCII'],
    ['Grüße, 東京', 'letters outside ASCII'],
    ['\uD83D\uDE80 launched', 'a surrogate pair (an emoji)'],
  ])('accepts %j (%s)', (value) => {
    expect(isWellFormedUnicode(value)).toBe(true);
  });

  it.each([
    ['\uD800', 'a lone high surrogate'],
    ['abc\uDC00', 'a lone low surrogate at the end'],
    ['\uDE80\uD83D', 'a pair in the wrong order'],
    ['\uD83D\uD83D\uDE80', 'a high surrogate before a whole pair'],
  ])('refuses %j (%s)', (value) => {
    expect(isWellFormedUnicode(value)).toBe(false);
  });
});
