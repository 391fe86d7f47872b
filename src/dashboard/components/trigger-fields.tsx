import { useId } from 'react';
import type { TriggerType } from '../api/types';
import { Options, SelectField, TextField } from './form-fields';
import { TRIGGER_LIST, TRIGGER_WORDS, type TriggerDraft } from './rule-drafts';

interface TriggerFieldsProps {
  readonly draft: TriggerDraft;
  readonly onChange: (draft: TriggerDraft) => void;
  readonly cooldown: string;
  readonly onCooldownChange: (cooldown: string) => void;
  /** Suggestions for `Group by`: the event's schema fields and the special names. */
  readonly fieldSuggestions: readonly string[];
}

const TRIGGER_HINTS: Readonly<Record<TriggerType, string>> = {
  every: 'Each matching event triggers the rule.',
  threshold: 'The rule triggers when Count matching events fall within the window (by event time); those events are then used up.',
  absence: 'The rule triggers when no matching event arrives for the silence; the next match sends a recovery.',
};

/** When matches make the rule trigger: the kind, its numbers, and the cooldown after a trigger. */
export function TriggerFields({ draft, onChange, cooldown, onCooldownChange, fieldSuggestions }: TriggerFieldsProps) {
  const groupListId = useId();
  const change = (part: Partial<TriggerDraft>): void => onChange({ ...draft, ...part });
  const wholeNumber = { type: 'number', inputMode: 'numeric', step: 1 } as const;
  return (
    <div className="trigger-fields">
      <SelectField label="Trigger" value={draft.type} onChange={(e) => change({ type: e.target.value as TriggerType })} hint={TRIGGER_HINTS[draft.type]}>
        <Options values={TRIGGER_LIST} names={TRIGGER_WORDS} />
      </SelectField>
      {draft.type === 'threshold' && (
        <>
          <TextField label="Count" {...wholeNumber} min={2} max={1_000_000} value={draft.count} onChange={(e) => change({ count: e.target.value })} hint="2 to 1,000,000." />
          <TextField
            label="Window (seconds)"
            {...wholeNumber}
            min={10}
            max={86_400}
            value={draft.windowSeconds}
            onChange={(e) => change({ windowSeconds: e.target.value })}
            hint="10 to 86,400 (a day)."
          />
          <TextField
            label="Group by"
            value={draft.groupBy}
            list={groupListId}
            spellCheck={false}
            onChange={(e) => change({ groupBy: e.target.value })}
            hint={
              <>
                Optional: a field whose values count apart, such as <code>$customer_id</code> or <code>metadata.region</code>.
              </>
            }
          />
          <datalist id={groupListId}>
            {fieldSuggestions.map((field) => (
              <option key={field} value={field} />
            ))}
          </datalist>
        </>
      )}
      {draft.type === 'absence' && (
        <TextField
          label="Silence (seconds)"
          {...wholeNumber}
          min={10}
          max={604_800}
          value={draft.silenceSeconds}
          onChange={(e) => change({ silenceSeconds: e.target.value })}
          hint="10 to 604,800 (a week)."
        />
      )}
      <TextField
        label="Cooldown (seconds)"
        {...wholeNumber}
        min={0}
        max={86_400}
        value={cooldown}
        onChange={(e) => onCooldownChange(e.target.value)}
        hint={
          draft.type === 'threshold' && draft.groupBy.trim() !== ''
            ? 'After a trigger, that group’s matches within this many seconds neither send alerts nor count. 0 for none.'
            : 'After the rule triggers, matches within this many seconds neither send alerts nor count. 0 for none.'
        }
      />
    </div>
  );
}
