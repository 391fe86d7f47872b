import { useCallback, useState } from 'react';

/**
 * Paging through a cursor list (events, deliveries): the cursors of the pages visited so far, so
 * `Previous page` needs no cursor of its own and `First page` is the empty stack.
 */
export function useCursorPages() {
  const [cursors, setCursors] = useState<readonly string[]>([]);
  const next = useCallback((cursor: string) => setCursors((stack) => [...stack, cursor]), []);
  const previous = useCallback(() => setCursors((stack) => stack.slice(0, -1)), []);
  const first = useCallback(() => setCursors([]), []);
  return { cursor: cursors.at(-1), pageNumber: cursors.length + 1, next, previous, first };
}
