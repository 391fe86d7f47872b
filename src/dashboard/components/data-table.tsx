import type { ReactNode } from 'react';

interface DataTableProps {
  readonly caption: string;
  readonly columns: readonly string[];
  /**
   * On a phone, each row becomes a card of `column: value` lines instead of a row to scroll sideways
   * (styles/phones.css); the rows' cells must then name their column in `data-label`.
   */
  readonly stackOnPhones?: boolean;
  readonly children: ReactNode;
}

/**
 * A table that scrolls sideways on a narrow screen instead of squeezing its columns. The scroll
 * container is focusable and named, so keyboard users can scroll it too.
 */
export function DataTable({ caption, columns, stackOnPhones = false, children }: DataTableProps) {
  return (
    <div className="table-scroll" role="region" aria-label={caption} tabIndex={0}>
      <table className={stackOnPhones ? 'stack-on-phones' : undefined}>
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
