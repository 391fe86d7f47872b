import type { ErrorDetail } from './errors.js';
import { isWellFormedUnicode } from './unicode.js';

/**
 * Limits on parsed JSON that keep what a client sent exactly what the service stores and returns, and
 * keep every later step (serialising, storing, reading back, evaluating rules) within bounded work:
 *
 * - nesting: JSON.parse takes any depth, but JSON.stringify and the stores' JSON readers recurse and
 *   overflow thousands of levels down. A value that could be accepted but not read back is refused.
 * - `__proto__` as a key: JSON.parse keeps it as an own property, but every object copy, spread and
 *   schema library turns it into the copy's prototype instead, so the key would silently vanish.
 * - numbers that are not finite doubles (`1e400` parses to Infinity): JSON.stringify writes them as
 *   null, silently changing the value.
 * - strings and keys with an unpaired UTF-16 surrogate (a `"\ud800"` escape): there is no UTF-8 form,
 *   so every encoder on the way to a store writes U+FFFD instead.
 *
 * One walk, linear in the size of the value, that stops at the first problem.
 */

/** Nesting allowed inside an event's `data` and `metadata`, counting the object itself as level 1. */
export const MAX_EVENT_DATA_DEPTH = 32;

/**
 * Nesting allowed in any request body, counted from the body itself: an event's `data` sits two levels
 * down in a batch, so this leaves room for the event limit and bounds every other body.
 */
export const MAX_BODY_DEPTH = 64;

function depthMessage(maxDepth: number): string {
  return `must not nest objects and arrays more than ${maxDepth} levels deep`;
}

/** What is wrong, and where: the keys and indexes from the checked value down to the offending one. */
export interface JsonProblem {
  readonly path: ReadonlyArray<string | number>;
  readonly message: string;
}

/** The first problem of a parsed JSON value, or undefined. `maxDepth` counts the value itself as level 1. */
export function jsonValueProblem(value: unknown, maxDepth: number): JsonProblem | undefined {
  const path: Array<string | number> = [];
  const message = walk(value, 1, maxDepth, path);
  return message === undefined ? undefined : { path, message };
}

/** A problem as an error detail: its path joined by dots under `prefix` (`body` for the value itself). */
export function jsonProblemDetail(problem: JsonProblem, prefix = ''): ErrorDetail {
  const path = [...(prefix === '' ? [] : [prefix]), ...problem.path].join('.');
  return { path: path === '' ? 'body' : path, message: problem.message };
}

/** Leaves `path` at the offending value when it finds a problem; the segments are pushed and popped, never copied. */
function walk(value: unknown, depth: number, maxDepth: number, path: Array<string | number>): string | undefined {
  switch (typeof value) {
    case 'string':
      return isWellFormedUnicode(value) ? undefined : 'must be valid Unicode (no unpaired surrogate escapes)';
    case 'number':
      return Number.isFinite(value) ? undefined : 'must be a number that fits a double (JSON cannot carry it exactly)';
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return undefined;
  if (depth > maxDepth) return depthMessage(maxDepth);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      const problem = walk(value[i], depth + 1, maxDepth, path);
      if (problem !== undefined) return problem;
      path.pop();
    }
    return undefined;
  }
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    if (!isWellFormedUnicode(key)) return 'keys must be valid Unicode (no unpaired surrogate escapes)';
    path.push(key);
    if (key === '__proto__') return 'the key __proto__ is not allowed';
    const problem = walk(object[key], depth + 1, maxDepth, path);
    if (problem !== undefined) return problem;
    path.pop();
  }
  return undefined;
}
