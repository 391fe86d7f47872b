import { useEffect, useId, useRef, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

interface DialogProps {
  readonly title: string;
  /** Escape, Cancel and Done all end here; the parent unmounts the dialog. */
  readonly onClose: () => void;
  readonly children: ReactNode;
}

const FOCUSABLE = 'input:not([disabled]), button:not([disabled]), select:not([disabled]), textarea:not([disabled]), a[href]';

/**
 * A modal dialog on the native `<dialog>`: `showModal()` makes the page behind it inert and traps
 * the focus, Escape closes it. What the element does not do is done here: the first focus goes to
 * the control marked `data-autofocus` (Cancel in a confirmation, the value in a shown-once dialog),
 * the page behind is hidden from assistive technology, and the focus returns to the control that
 * opened the dialog (or the page heading when that control went away with a deleted row).
 */
export function Dialog({ title, onClose, children }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const onCloseRef = useRef(onClose);
  const titleId = useId();

  useEffect(() => {
    onCloseRef.current = onClose;
  }, [onClose]);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return undefined;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const root = document.getElementById('root');
    const cancel = (event: Event): void => {
      event.preventDefault();
      onCloseRef.current();
    };
    // Chromium may close without a cancelable `cancel` (Escape pressed twice without a click between).
    // A `close` event is queued, not dispatched at once: the one from a cleanup's close() can arrive
    // after the dialog was shown again (React's StrictMode mounts, cleans up and mounts again), when
    // it no longer means anything.
    const closed = (): void => {
      if (!dialog.open) onCloseRef.current();
    };
    dialog.addEventListener('cancel', cancel);
    dialog.addEventListener('close', closed);
    dialog.showModal();
    root?.setAttribute('aria-hidden', 'true');
    const first = dialog.querySelector<HTMLElement>('[data-autofocus]') ?? dialog.querySelector<HTMLElement>(FOCUSABLE);
    first?.focus();
    if (first instanceof HTMLInputElement && first.readOnly) first.select();

    return () => {
      dialog.removeEventListener('cancel', cancel);
      dialog.removeEventListener('close', closed);
      if (dialog.open) dialog.close();
      if (!document.querySelector('dialog[open]')) root?.removeAttribute('aria-hidden');
      const back = opener?.isConnected ? opener : document.querySelector<HTMLElement>('main h1');
      back?.focus();
    };
  }, []);

  return createPortal(
    <dialog ref={ref} className="dialog" aria-labelledby={titleId}>
      <h2 id={titleId} className="dialog-title">
        {title}
      </h2>
      {children}
    </dialog>,
    document.body,
  );
}
