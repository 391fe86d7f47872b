// A UTF-16 surrogate without its partner has no UTF-8 encoding; encoders silently turn it into U+FFFD,
// so a stored value would differ from the one we were given. JSON can carry one ("\ud800"), so every
// boundary that stores text checks with this.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when the string has a UTF-8 form (no lone surrogate). */
export function isWellFormedUnicode(value: string): boolean {
  return !LONE_SURROGATE.test(value);
}
