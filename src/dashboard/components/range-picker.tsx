import { RANGES, type StatsRange } from './stats-range';

/** The overview's range: one pressed button of `1 h`, `24 h`, `7 d`, `30 d`, in a group named `Range`. */
export function RangePicker({ value, onChange }: { readonly value: StatsRange; readonly onChange: (range: StatsRange) => void }) {
  return (
    <div role="group" aria-label="Range" className="segmented">
      {RANGES.map((range) => (
        <button key={range.id} type="button" className="button small" aria-pressed={range.id === value.id} onClick={() => onChange(range)}>
          {range.label}
        </button>
      ))}
    </div>
  );
}
