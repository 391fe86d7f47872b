import { useId } from 'react';

interface SwitchProps {
  /** The accessible name, exactly as docs/dashboard.md gives it (`Enable Big orders`, `Action 1 enabled`). */
  readonly label: string;
  /** What sighted users read next to the switch; the label when absent. */
  readonly visibleLabel?: string;
  readonly checked: boolean;
  readonly onChange: (checked: boolean) => void;
  readonly disabled?: boolean;
}

/**
 * An on/off switch: a real checkbox with role `switch`, so the keyboard (Space), forms and screen
 * readers all work; the track beside it is drawing only.
 */
export function Switch({ label, visibleLabel, checked, onChange, disabled = false }: SwitchProps) {
  const id = useId();
  return (
    <span className="switch">
      <input id={id} type="checkbox" role="switch" checked={checked} disabled={disabled} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={id}>
        <span className="switch-track" aria-hidden="true" />
        {visibleLabel === undefined ? (
          <span>{label}</span>
        ) : (
          <>
            <span className="sr-only">{label}</span>
            <span aria-hidden="true">{visibleLabel}</span>
          </>
        )}
      </label>
    </span>
  );
}
