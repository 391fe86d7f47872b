import { describe, expect, it } from 'vitest';
import { jsonProblemDetail, jsonValueProblem } from './json-limits.js';

/** JSON text nested `levels` deep in arrays, built as text: JSON.stringify itself overflows on such values. */
const deepArrays = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

describe('jsonValueProblem', () => {
  it('accepts what JSON carries exactly: any scalar, unicode, nesting up to the limit', () => {
    for (const value of [null, true, 0, -1.5, 1e308, '', 'é 中文 🎉', [], {}, { a: [1, { b: 'c' }] }, JSON.parse(deepArrays(4))]) {
      expect(jsonValueProblem(value, 4)).toBeUndefined();
    }
  });

  it('names the first container nested beyond the limit', () => {
    const problem = jsonValueProblem(JSON.parse('{"a":{"b":[{"c":{}}]}}'), 4);
    expect(problem).toEqual({ path: ['a', 'b', 0, 'c'], message: 'must not nest objects and arrays more than 4 levels deep' });
    expect(jsonProblemDetail(problem!, 'data')).toEqual({ path: 'data.a.b.0.c', message: problem!.message });
  });

  it('refuses a __proto__ key at any level, which every object copy would drop', () => {
    expect(jsonValueProblem(JSON.parse('{"__proto__":{"x":1}}'), 32)?.path).toEqual(['__proto__']);
    expect(jsonValueProblem(JSON.parse('{"a":[{"__proto__":1}]}'), 32)).toEqual({ path: ['a', 0, '__proto__'], message: 'the key __proto__ is not allowed' });
  });

  it('refuses numbers JSON.stringify would write as null', () => {
    expect(jsonValueProblem(JSON.parse('{"n":[1,1e400]}'), 32)?.path).toEqual(['n', 1]);
    expect(jsonValueProblem(JSON.parse('-1e400'), 32)?.path).toEqual([]);
  });

  it('refuses unpaired surrogates in values and in keys, which have no UTF-8 form', () => {
    expect(jsonValueProblem(JSON.parse('{"s":"a\\ud800b"}'), 32)?.path).toEqual(['s']);
    expect(jsonValueProblem(JSON.parse('{"k":{"\\udc00":1}}'), 32)).toEqual({ path: ['k'], message: 'keys must be valid Unicode (no unpaired surrogate escapes)' });
    expect(jsonValueProblem('\ud83c\udf89', 32)).toBeUndefined();
  });

  it('says "body" for the value itself', () => {
    expect(jsonProblemDetail(jsonValueProblem(Infinity, 1)!)).toEqual({ path: 'body', message: 'must be a number that fits a double (JSON cannot carry it exactly)' });
  });

  it('stops at the limit on values nested far deeper than the stack could recurse', () => {
    // JSON.parse builds this without recursion; a walk that recursed to the bottom would overflow.
    const value: unknown = JSON.parse(deepArrays(500_000));
    expect(jsonValueProblem(value, 64)?.path).toHaveLength(64);
  });
});
