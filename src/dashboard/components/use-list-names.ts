import type { UseQueryResult } from '@tanstack/react-query';
import { useEffect } from 'react';

/**
 * Names for the ids a page refers to (a delivery's rule and destination), from a list the page read
 * too. A list read before the rule or destination was made does not know it yet, so an id missing
 * from it makes it read again, once per new set of missing ids; only an id still missing after that
 * is called `gone` (a deleted rule keeps its deliveries).
 */
export function useListNames<T extends { readonly id: string }>(
  list: UseQueryResult<T[]>,
  ids: readonly string[],
  nameOf: (item: T) => string,
  gone: string,
): (id: string) => string {
  const { data, isFetching, refetch } = list;
  const missing = data === undefined ? '' : [...new Set(ids.filter((id) => !data.some((item) => item.id === id)))].sort().join(',');
  useEffect(() => {
    if (missing !== '') void refetch();
  }, [missing, refetch]);
  return (id) => {
    const item = data?.find((candidate) => candidate.id === id);
    if (item) return nameOf(item);
    return data === undefined || isFetching ? '…' : gone;
  };
}
