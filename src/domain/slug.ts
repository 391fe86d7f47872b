import { isUuid } from './uuid.js';

/**
 * App slugs: `^[a-z0-9][a-z0-9-]{0,62}$`, unique per account. Every `{appId}` in a path is read as an
 * id when it has the form of a UUID and as a slug otherwise, so a slug must never have that form:
 * explicit ones are refused, generated ones are prefixed.
 */
export const SLUG_MAX_LENGTH = 63;
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** The slug of a name with nothing usable in it (only symbols, or a script without a Latin form). */
export const FALLBACK_SLUG = 'app';

/** Latin letters that Unicode decomposition leaves alone but that have a usual ASCII spelling. */
const LETTER_FOLDS: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  ł: 'l',
  þ: 'th',
  ı: 'i',
};

export function isValidSlug(value: string): boolean {
  return SLUG_PATTERN.test(value) && !isUuid(value);
}

/**
 * The slug generated for a name: accents dropped (`Café` → `cafe`), letters folded to ASCII where a
 * usual spelling exists (`Straße` → `strasse`), every run of anything else turned into one `-`, no `-`
 * at either end, at most 63 characters. Always a valid slug.
 */
export function slugFromName(name: string): string {
  const folded = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[ßæœøđðłþı]/g, (letter) => LETTER_FOLDS[letter] ?? '-');
  const slug = trimTo(folded.replace(/[^a-z0-9]+/g, '-').replace(/^-+/, ''), SLUG_MAX_LENGTH);
  if (slug === '') return FALLBACK_SLUG;
  return isUuid(slug) ? `${FALLBACK_SLUG}-${slug}` : slug;
}

/** `base` with `-suffix` appended, `base` shortened first so the result still fits in 63 characters. */
export function slugWithSuffix(base: string, suffix: string): string {
  return `${trimTo(base, SLUG_MAX_LENGTH - suffix.length - 1)}-${suffix}`;
}

/**
 * The slugs tried, in order, for a generated slug: the base itself, then `base-2` … `base-{count}`.
 * Numbered suffixes read better than random ones; the caller falls back to a random suffix when all
 * of these are taken.
 */
export function slugCandidates(base: string, count: number): string[] {
  const out = [base];
  for (let n = 2; n <= count; n++) out.push(slugWithSuffix(base, String(n)));
  return out;
}

/** At most `max` characters, without a trailing `-` (which a cut may expose). */
function trimTo(value: string, max: number): string {
  return value.slice(0, max).replace(/-+$/, '');
}
