/**
 * The label of a control in a numbered row: its accessible name is `<prefix> <word>`
 * (`Field 2 type`, `Condition 1 value`), as docs/dashboard.md gives it; sighted users see only the
 * capitalised word, under a visible row number.
 */
export function RowLabel({ htmlFor, prefix, word }: { readonly htmlFor: string; readonly prefix: string; readonly word: string }) {
  return (
    <label htmlFor={htmlFor}>
      <span className="sr-only">{prefix} </span>
      <span className="capitalise">{word}</span>
    </label>
  );
}
