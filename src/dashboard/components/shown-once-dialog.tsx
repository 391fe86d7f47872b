import { useId, useRef, useState } from 'react';
import { Dialog } from './dialog';

interface ShownOnceDialogProps {
  /** The value's name: the dialog's title and the text box's label (`API key`, `Client secret`, `Signing secret`). */
  readonly name: string;
  readonly value: string;
  /** Where the value goes, in one sentence. */
  readonly hint?: string;
  readonly onDone: () => void;
}

/**
 * A value the API returns once (an API key, a client secret, a webhook signing secret). It lives in
 * this dialog's props only: closing the dialog drops the last reference the dashboard has.
 */
export function ShownOnceDialog({ name, value, hint, onDone }: ShownOnceDialogProps) {
  const inputId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string>('');

  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied to the clipboard.');
    } catch {
      // No clipboard access (a plain-http origin that is not localhost): select it for Ctrl+C instead.
      input.current?.select();
      setCopied('Selected: press Ctrl+C (or ⌘C) to copy.');
    }
  };

  return (
    <Dialog title={name} onClose={onDone}>
      <div className="dialog-body">
        <label htmlFor={inputId}>{name}</label>
        <div className="copy-row">
          <input ref={input} id={inputId} className="mono" readOnly value={value} data-autofocus spellCheck={false} autoComplete="off" />
          <button type="button" className="button" onClick={() => void copy()}>
            Copy
          </button>
        </div>
        <p role="status" className="muted small">
          {copied}
        </p>
        <p className="warning">
          <strong>You will not see this again.</strong> {hint}
        </p>
      </div>
      <div className="dialog-actions">
        <button type="button" className="button primary" onClick={onDone}>
          Done
        </button>
      </div>
    </Dialog>
  );
}
