import { describe, expect, it } from 'vitest';
import { isWellFormedUnicode } from './unicode.js';

describe('isWellFormedUnicode', () => {
  it.each([
    ['', true, 'the empty string'],
    ['checkout.completed', true, 'ASCII'],
    ['Grüße, 東京', true, 'letters outside ASCII'],
    ['\uD83D\uDE80 launched', true, 'a surrogate pair (an emoji)'],
    ['\uD800', false, 'a lone high surrogate'],
    ['abc\uDC00', false, 'a lone low surrogate at the end'],
    ['\uDE80\uD83D', false, 'a pair in the wrong order'],
    ['\uD83D\uD83D\uDE80', false, 'a high surrogate before a whole pair'],
  ])('%j is %s (%s)', (value, wellFormed) => {
    expect(isWellFormedUnicode(value)).toBe(wellFormed);
  });
});
