import { describe, expect, it } from 'vitest';
import { isDisplayText, isStorableText } from './text.js';

describe('isStorableText', () => {
  it.each(['', 'plain', 'tab\tand\nnewline', 'emoji 🚀', 'ünïcödé', '\u{10FFFF}'])('accepts %j', (value) => {
    expect(isStorableText(value)).toBe(true);
  });
  it.each(['nul\u0000', '\u0000', 'lone high \uD83D', 'lone low \uDE80 here', '\uDE80\uD83D'])('refuses %j', (value) => {
    expect(isStorableText(value)).toBe(false);
  });
});

describe('isDisplayText', () => {
  it('refuses control characters, which storable text allows', () => {
    expect(isDisplayText('My app 🚀')).toBe(true);
    expect(isDisplayText('two\nlines')).toBe(false);
    expect(isDisplayText('bell\u0007')).toBe(false);
    expect(isDisplayText('nul\u0000')).toBe(false);
  });
});
