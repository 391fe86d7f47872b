import { describe, expect, it } from 'vitest';
import { FALLBACK_SLUG, SLUG_MAX_LENGTH, SLUG_PATTERN, isValidSlug, slugCandidates, slugFromName, slugWithSuffix } from './slug.js';

describe('slugFromName', () => {
  it.each([
    ['My Shop', 'my-shop'],
    ['  padded  name  ', 'padded-name'],
    ['Café Crème', 'cafe-creme'],
    ['Żółć & Łódź', 'zolc-lodz'],
    ['Straße', 'strasse'],
    ['Ærøskøbing', 'aeroskobing'],
    ['ＦＵＬＬ－ｗｉｄｔｈ', 'full-width'],
    ['orders.v2 / EU_west!!', 'orders-v2-eu-west'],
    ['---already-slugged---', 'already-slugged'],
    ['release 2024', 'release-2024'],
  ])('%j → %j', (name, slug) => {
    expect(slugFromName(name)).toBe(slug);
  });

  it.each(['', '   ', '!!!', '商店', 'Магазин', '🚀🚀'])('falls back to %j for a name with nothing usable (%j)', (name) => {
    expect(slugFromName(name)).toBe(FALLBACK_SLUG);
  });

  it('cuts long names to 63 characters without leaving a trailing hyphen', () => {
    const slug = slugFromName(`${'a'.repeat(62)} b`);
    expect(slug).toBe('a'.repeat(62));
    expect(slugFromName('x'.repeat(500))).toHaveLength(SLUG_MAX_LENGTH);
  });

  it('never yields a UUID, which a path would read as an app id', () => {
    const uuid = '0190f5a2-7c3b-7def-8a12-3456789abcde';
    const slug = slugFromName(uuid.toUpperCase());
    expect(slug).toBe(`app-${uuid}`);
    expect(isValidSlug(slug)).toBe(true);
  });

  it('always yields a valid slug', () => {
    for (const name of ['a', 'A-', '-', 'Ü', '1', `${'é'.repeat(100)}`, 'x y z', '\u0000tab\tnew\nline', 'İstanbul']) {
      expect(slugFromName(name)).toMatch(SLUG_PATTERN);
    }
  });
});

describe('isValidSlug', () => {
  it.each(['a', 'shop', 'shop-2', '0', 'a'.repeat(63), 'a-'])('accepts %j', (slug) => {
    expect(isValidSlug(slug)).toBe(true);
  });

  it.each(['', '-a', 'Shop', 'a_b', 'a.b', 'a'.repeat(64), 'ä', '0190f5a2-7c3b-7def-8a12-3456789abcde'])('refuses %j', (slug) => {
    expect(isValidSlug(slug)).toBe(false);
  });
});

describe('slugWithSuffix and slugCandidates', () => {
  it('numbers candidates after the base', () => {
    expect(slugCandidates('shop', 4)).toEqual(['shop', 'shop-2', 'shop-3', 'shop-4']);
  });

  it('shortens the base so a suffixed slug still fits, without a double hyphen', () => {
    const base = `${'a'.repeat(59)}-bcd`;
    const suffixed = slugWithSuffix(base, '12');
    expect(suffixed).toHaveLength(SLUG_MAX_LENGTH - 1);
    expect(suffixed).toBe(`${'a'.repeat(59)}-12`);
    expect(isValidSlug(slugWithSuffix('a'.repeat(63), 'k3x9q2'))).toBe(true);
  });
});
