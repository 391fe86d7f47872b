import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';

/**
 * Labelled controls: a visible `<label>` whose text is the control's accessible name, and an
 * optional hint tied to the control with aria-describedby.
 */

interface Labelled {
  readonly label: string;
  readonly hint?: ReactNode;
}

function useIds(hint: ReactNode): { id: string; hintId: string | undefined } {
  const id = useId();
  return { id, hintId: hint === undefined ? undefined : `${id}-hint` };
}

function Hint({ id, hint }: { readonly id: string | undefined; readonly hint: ReactNode }) {
  return id === undefined ? null : (
    <p id={id} className="hint">
      {hint}
    </p>
  );
}

export function TextField({ label, hint, className, ...input }: Labelled & InputHTMLAttributes<HTMLInputElement>) {
  const { id, hintId } = useIds(hint);
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-describedby={hintId} {...input} />
      <Hint id={hintId} hint={hint} />
    </div>
  );
}

export function SelectField({ label, hint, className, children, ...select }: Labelled & SelectHTMLAttributes<HTMLSelectElement>) {
  const { id, hintId } = useIds(hint);
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={id}>{label}</label>
      <select id={id} aria-describedby={hintId} {...select}>
        {children}
      </select>
      <Hint id={hintId} hint={hint} />
    </div>
  );
}

export function TextAreaField({ label, hint, className, ...textarea }: Labelled & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const { id, hintId } = useIds(hint);
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={id}>{label}</label>
      <textarea id={id} aria-describedby={hintId} {...textarea} />
      <Hint id={hintId} hint={hint} />
    </div>
  );
}

/** A select's options: one per value, shown as its name in `names` or else as the value itself. */
export function Options<Value extends string>({ values, names }: { readonly values: readonly Value[]; readonly names?: Readonly<Record<Value, string>> }) {
  return values.map((value) => (
    <option key={value} value={value}>
      {names?.[value] ?? value}
    </option>
  ));
}
