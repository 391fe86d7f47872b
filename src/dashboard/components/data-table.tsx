import type { ReactNode } from 'react';

/**
 * A table that scrolls sideways on a narrow screen instead of squeezing its columns. The scroll
 * container is focusable and named, so keyboard users can scroll it too.
 */
export function DataTable({ caption, columns, children }: { readonly caption: string; readonly columns: readonly string[]; readonly children: ReactNode }) {
  return (
    <div className="table-scroll" role="region" aria-label={caption} tabIndex={0}>
      <table>
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
