import type { ReactNode } from 'react';
import { ErrorAlert } from './error-alert';

interface FormFooterProps {
  /** The save's error: an alert above the buttons, next to what caused it. */
  readonly error: Error | null;
  /** The save is running: the submit button is disabled and marked busy. */
  readonly pending: boolean;
  /** `Save rule`, `Send test event`. */
  readonly submitLabel: string;
  /** An editor opened for the purpose closes with `Cancel`. */
  readonly onCancel?: () => void;
  /**
   * A form that stays open says what its submit did in a status region after the buttons. Given
   * (even empty: `''`, `false`), the region is always in the page, so that screen readers announce
   * what appears in it; left out, there is none.
   */
  readonly status?: ReactNode;
}

/** The end of a form: its error, then the submit button with `Cancel` or a status line. */
export function FormFooter({ error, pending, submitLabel, onCancel, status }: FormFooterProps) {
  return (
    <>
      <ErrorAlert error={error} />
      <div className="actions">
        <button type="submit" className="button primary" disabled={pending} aria-busy={pending}>
          {submitLabel}
        </button>
        {onCancel && (
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
        )}
        {status !== undefined && (
          <p role="status" className="success-text">
            {status}
          </p>
        )}
      </div>
    </>
  );
}
