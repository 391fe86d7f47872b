import { useEffect, useState } from 'react';

/**
 * `value` once it has stayed the same for `delayMs`: what the editor's live checks ask the API about,
 * so typing a word costs one request, not one per key. The first value is settled at once.
 */
export function useDebounced<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}
