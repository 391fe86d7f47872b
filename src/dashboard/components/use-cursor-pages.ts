import { useCallback, useState } from 'react';

/**
 * Paging through a cursor list (events, deliveries): the cursors of the pages visited so far, so
 * `Previous page` needs no cursor of its own and `First page` is the empty stack. A cursor is bound to
 * the filters that issued it: when `scope` (the filters, as text) changes, paging starts again at the
 * first page, in the same render, so no request ever pairs a cursor with other filters.
 */
export function useCursorPages(scope = '') {
  const [state, setState] = useState<{ readonly scope: string; readonly cursors: readonly string[] }>({ scope, cursors: [] });
  const cursors = state.scope === scope ? state.cursors : [];
  const next = useCallback((cursor: string) => setState((s) => ({ scope, cursors: [...(s.scope === scope ? s.cursors : []), cursor] })), [scope]);
  const previous = useCallback(() => setState((s) => ({ scope, cursors: s.scope === scope ? s.cursors.slice(0, -1) : [] })), [scope]);
  const first = useCallback(() => setState({ scope, cursors: [] }), [scope]);
  return { cursor: cursors.at(-1), pageNumber: cursors.length + 1, next, previous, first };
}
