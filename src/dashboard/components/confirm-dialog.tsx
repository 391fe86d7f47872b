import type { ReactNode } from 'react';
import { Dialog } from './dialog';
import { ErrorAlert } from './error-alert';

interface ConfirmDialogProps {
  readonly title: string;
  readonly children: ReactNode;
  /** The confirm button's name, e.g. `Delete schema` (docs/dashboard.md). */
  readonly confirmLabel: string;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
  readonly pending: boolean;
  /** Shown inside the dialog, which stays open, so the failure is next to the button that caused it. */
  readonly error: Error | null;
}

/** Every destructive or irreversible step asks here first; Cancel has the first focus. */
export function ConfirmDialog({ title, children, confirmLabel, onConfirm, onCancel, pending, error }: ConfirmDialogProps) {
  return (
    <Dialog title={title} onClose={onCancel}>
      <div className="dialog-body">{children}</div>
      <ErrorAlert error={error} />
      <div className="dialog-actions">
        <button type="button" className="button" data-autofocus onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="button danger" onClick={onConfirm} disabled={pending} aria-busy={pending}>
          {confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}
