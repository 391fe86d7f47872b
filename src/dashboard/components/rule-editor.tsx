import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { segment } from '../api/client';
import { LIST_QUERY, queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import type { Destination, EventSchema, MatchMode, NotificationRule, RuleInput } from '../api/types';
import { ActionRows } from './action-rows';
import { ConditionRows } from './condition-rows';
import { FormFooter } from './form-footer';
import { SelectField, TextField } from './form-fields';
import { RuleChecks } from './rule-checks';
import { actionDraft, conditionDraft, toAction, toCondition, toTrigger, triggerDraft, type ActionDraft, type ConditionDraft, type TriggerDraft } from './rule-drafts';
import { TriggerFields } from './trigger-fields';

interface RuleEditorProps {
  readonly appId: string;
  readonly destinations: readonly Destination[];
  /** Absent for a new rule. */
  readonly rule?: NotificationRule;
  readonly onDone: () => void;
}

/** The special condition fields every event has. */
const EVENT_FIELDS = ['$level', '$customer_id'];

/**
 * Creates or edits a rule: conditions and match mode, trigger and cooldown, actions with their message
 * templates; under them, live checks of the draft (its messages, and how often it would have fired).
 */
export function RuleEditor({ appId, destinations, rule, onDone }: RuleEditorProps) {
  const api = useApi();
  const queryClient = useQueryClient();
  const eventListId = useId();
  const schemas = useQuery({ queryKey: queryKeys.schemas(appId), queryFn: () => api.get<EventSchema[]>(`/v1/apps/${segment(appId)}/schemas`, LIST_QUERY) });
  const [name, setName] = useState(rule?.name ?? '');
  const [eventName, setEventName] = useState(rule?.eventName ?? '');
  const [match, setMatch] = useState<MatchMode>(rule?.match ?? 'all');
  const [conditions, setConditions] = useState<ConditionDraft[]>(() => rule?.conditions.map((c) => conditionDraft(c)) ?? []);
  const [actions, setActions] = useState<ActionDraft[]>(() => rule?.actions.map((a) => actionDraft(a)) ?? []);
  const [cooldown, setCooldown] = useState(String(rule?.cooldownSeconds ?? 0));
  const [trigger, setTrigger] = useState<TriggerDraft>(() => triggerDraft(rule?.trigger));

  const schema = schemas.data?.find((s) => s.eventName === eventName.trim());
  const fieldSuggestions = [...(schema?.fields.map((f) => f.name) ?? []), ...(schema?.metadataFields.map((f) => `metadata.${f.name}`) ?? []), ...EVENT_FIELDS];

  // What saving sends; the live checks try the same body, with the rule's enabled state.
  const draft: RuleInput = {
    name,
    eventName: eventName.trim(),
    enabled: rule?.enabled ?? true,
    match,
    conditions: conditions.map(toCondition),
    actions: actions.map(toAction),
    // Not a number becomes null in JSON: the API's message then says what it must be.
    cooldownSeconds: cooldown.trim() === '' ? 0 : Number(cooldown),
    trigger: toTrigger(trigger),
  };

  const save = useMutation({
    mutationFn: () => {
      const base = `/v1/apps/${segment(appId)}/notification-rules`;
      // An edit leaves `enabled` to the list's switch, which may have moved since the editor opened.
      const { enabled: _enabled, ...changes } = draft;
      return rule ? api.patch<NotificationRule>(`${base}/${segment(rule.id)}`, changes) : api.post<NotificationRule>(base, draft);
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.rules(appId) });
      onDone();
    },
  });

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    save.mutate();
  };

  return (
    <section className="card editor" aria-labelledby="rule-editor-title">
      <h3 id="rule-editor-title">{rule ? `Edit rule ${rule.name}` : 'New rule'}</h3>
      <form className="stack" onSubmit={submit} noValidate>
        <div className="three-columns">
          <TextField label="Rule name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} autoFocus />
          <TextField label="Event name" value={eventName} onChange={(e) => setEventName(e.target.value)} list={eventListId} spellCheck={false} />
          <SelectField label="Match" value={match} onChange={(e) => setMatch(e.target.value as MatchMode)} hint="all: every condition must hold; any: at least one.">
            <option value="all">all</option>
            <option value="any">any</option>
          </SelectField>
        </div>
        <datalist id={eventListId}>
          {schemas.data?.map((s) => (
            <option key={s.id} value={s.eventName} />
          ))}
        </datalist>
        <ConditionRows rows={conditions} onChange={setConditions} fieldSuggestions={fieldSuggestions} />
        <TriggerFields draft={trigger} onChange={setTrigger} cooldown={cooldown} onCooldownChange={setCooldown} fieldSuggestions={fieldSuggestions} />
        <ActionRows rows={actions} onChange={setActions} destinations={destinations} />
        <RuleChecks appId={appId} draft={draft} destinations={destinations} />
        <FormFooter error={save.error} pending={save.isPending} submitLabel="Save rule" onCancel={onDone} />
      </form>
    </section>
  );
}
