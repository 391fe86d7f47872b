import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { ApiError, segment } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import type { Destination, RuleDryRun, RuleInput, RulePreview } from '../api/types';
import { CHANNEL_NAMES } from './destination-form';
import { ErrorAlert } from './error-alert';
import { counted } from './format';
import { useDebounced } from './use-debounced';

/** Long enough that a word typed in one go is one request, short enough to feel live. */
const SETTLE_MS = 500;

interface RuleChecksProps {
  readonly appId: string;
  /** The rule as the editor would save it. */
  readonly draft: RuleInput;
  readonly destinations: readonly Destination[];
}

/**
 * What the draft rule would do, before it is saved: how often it would have fired over the last 24 h
 * of stored events (the API's dry-run), and each action's message for the newest event of its name
 * (the API's preview). Both send and store nothing; both follow the draft as it is typed.
 */
export function RuleChecks({ appId, draft, destinations }: RuleChecksProps) {
  const api = useApi();
  const previewId = useId();
  const incomplete = draft.name.trim() === '' || draft.eventName === '';
  const current = incomplete ? null : JSON.stringify(draft);
  const settled = useDebounced(current, SETTLE_MS);
  const base = `/v1/apps/${segment(appId)}/notification-rules`;
  // Queries, not mutations: both only read, and asking again for the same draft may use the answer.
  const ask = <T,>(check: 'preview' | 'dry-run') => ({
    queryKey: queryKeys.ruleCheck(appId, check, settled ?? ''),
    queryFn: () => api.post<T>(`${base}/${check}`, { rule: JSON.parse(settled ?? '{}') as unknown }),
    enabled: settled !== null,
    placeholderData: keepPreviousData,
  });
  const dryRun = useQuery(ask<RuleDryRun>('dry-run'));
  const preview = useQuery(ask<RulePreview>('preview'));
  // An answer for an earlier draft stays on screen, dimmed and marked busy, until this one's arrives.
  const outdated = (placeholder: boolean): boolean => current !== settled || placeholder;

  if (incomplete) {
    return <p className="muted small">Enter a rule name and an event name to see its messages and how often it would have fired in the last 24 h.</p>;
  }

  const errors = [dryRun.error, preview.error].filter((e) => e !== null).map(asSaveWouldSay);
  return (
    <div className="rule-checks">
      <p role="status" className={`strong ${outdated(dryRun.isPlaceholderData) ? 'outdated' : ''}`} aria-busy={outdated(dryRun.isPlaceholderData)}>
        {dryRun.data ? dryRunSentence(dryRun.data, draft.eventName) : dryRun.isError ? '' : 'Checking the last 24 h…'}
      </p>
      {/* Both checks validate the same rule: one mistake is said once. */}
      {errors.filter((error, index) => index === 0 || !sameError(error, errors[0]!)).map((error, index) => (
        <ErrorAlert key={index} error={error} />
      ))}
      <section aria-labelledby={previewId} className={`message-preview ${outdated(preview.isPlaceholderData) ? 'outdated' : ''}`} aria-busy={outdated(preview.isPlaceholderData)}>
        <h4 id={previewId}>Message preview</h4>
        {preview.data ? (
          <PreviewMessages preview={preview.data} eventName={draft.eventName} destinations={destinations} />
        ) : (
          <p className="muted small">{preview.isError ? 'No preview until the rule is one the service accepts.' : 'Rendering…'}</p>
        )}
      </section>
    </div>
  );
}

function dryRunSentence(result: RuleDryRun, eventName: string): string {
  return `Would have fired ${counted(result.triggers, 'time', 'times')} in the last 24 h (${result.matchedEvents} of ${counted(result.evaluatedEvents, `${eventName} event`, `${eventName} events`)} matched).`;
}

function PreviewMessages({ preview, eventName, destinations }: { readonly preview: RulePreview; readonly eventName: string; readonly destinations: readonly Destination[] }) {
  const label = (id: string): string => destinations.find((d) => d.id === id)?.label ?? '(unknown destination)';
  const source =
    preview.eventId === null
      ? `No ${eventName} event is stored yet: these are the messages for an empty one.`
      : preview.matched
        ? `From the newest ${eventName} event.`
        : `From the newest ${eventName} event, which does not match the rule: it would send nothing.`;
  return (
    <>
      <p className="muted small">{source}</p>
      {preview.messages.length === 0 ? (
        <p className="muted small">No enabled actions: the rule sends no message.</p>
      ) : (
        <ol className="message-list">
          {preview.messages.map((message, index) => (
            // Text nodes only: what the API rendered is shown, never interpreted as markup.
            <li key={`${message.destinationId}-${index}`} className="message">
              <p className="muted small">
                To {label(message.destinationId)} ({CHANNEL_NAMES[message.type]})
              </p>
              <p className="strong break">{message.title}</p>
              <pre className="message-body">{message.body}</pre>
            </li>
          ))}
        </ol>
      )}
    </>
  );
}

/**
 * The checks send the draft as `{ rule }`, so the API names a field `rule.trigger.count`; saving
 * sends the rule itself and would say `trigger.count`. The reader sees the second.
 */
function asSaveWouldSay(error: Error): Error {
  if (!(error instanceof ApiError)) return error;
  const strip = (text: string): string => text.replace(/^rule\./, '');
  return new ApiError(
    strip(error.message),
    error.status,
    error.details.map((d) => ({ path: strip(d.path), message: d.message })),
  );
}

function sameError(a: Error, b: Error): boolean {
  const details = (e: Error): string => (e instanceof ApiError ? JSON.stringify(e.details) : '');
  return a.message === b.message && details(a) === details(b);
}
