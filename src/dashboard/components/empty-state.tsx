import type { ReactNode } from 'react';

/** What an empty list says instead of an empty table. */
export function EmptyState({ children }: { readonly children: ReactNode }) {
  return <p className="empty">{children}</p>;
}
