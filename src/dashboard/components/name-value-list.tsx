import type { ReactNode } from 'react';

export interface NameValue {
  readonly name: string;
  readonly value: ReactNode;
  /** Classes of the value, e.g. `mono break` for ids. */
  readonly valueClass?: string | undefined;
}

/** Names and their values as a description list: the overview's totals, an event's fields. */
export function NameValueList({ items, className }: { readonly items: readonly NameValue[]; readonly className: string }) {
  return (
    <dl className={`name-values ${className}`}>
      {items.map((item) => (
        <div key={item.name}>
          <dt>{item.name}</dt>
          <dd className={item.valueClass}>{item.value}</dd>
        </div>
      ))}
    </dl>
  );
}
