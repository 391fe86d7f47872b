/**
 * A value now, or a promise of it. What a lookup returns when it is often answered from memory: a
 * cache hit then costs no promise. On the ingest path that matters: a request went through some forty
 * promises, and on Node 20 each one also runs the async-context hooks that AsyncLocalStorage turns on
 * for the whole process (the metadata ORM's, the logger's), which cost a fifth of the edge's CPU per
 * request (bench/NOTES.md, "Forty promises per request").
 */
export type Awaitable<T> = T | Promise<T>;

/** `f` applied to the value, at once when it is there, else once the promise resolves. */
export function mapAwaitable<T, U>(value: Awaitable<T>, f: (value: T) => U): Awaitable<U> {
  return value instanceof Promise ? value.then(f) : f(value);
}
