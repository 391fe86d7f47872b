import { z } from 'zod';
import { fieldPathSchema } from './rule-conditions.js';

/**
 * What makes a matching event trigger a rule. `every`: each match (subject to the cooldown).
 * `threshold`: the match that makes `count` matching events (of its `groupBy` group) fall within
 * `windowSeconds` of event time; the trigger consumes them. `absence`: no match processed for
 * `windowSeconds`; the next match after that sends a recovery alert. The decisions themselves are in
 * rule-decision.ts.
 */
export const TRIGGER_TYPES = ['every', 'threshold', 'absence'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

export const THRESHOLD_COUNT = { min: 2, max: 1_000_000 } as const;
export const THRESHOLD_WINDOW_SECONDS = { min: 10, max: 86_400 } as const;
export const ABSENCE_WINDOW_SECONDS = { min: 10, max: 604_800 } as const;

export type RuleTrigger =
  | { readonly type: 'every' }
  | { readonly type: 'threshold'; readonly count: number; readonly windowSeconds: number; readonly groupBy?: string }
  | { readonly type: 'absence'; readonly windowSeconds: number };

export const EVERY_MATCH: RuleTrigger = { type: 'every' };

const wholeNumber = (bounds: { readonly min: number; readonly max: number }) => {
  const message = `must be a whole number from ${bounds.min} to ${bounds.max.toLocaleString('en-US')}`;
  return z.number({ error: message }).int(message).min(bounds.min, message).max(bounds.max, message);
};

export const ruleTriggerSchema = z
  .discriminatedUnion(
    'type',
    [
      z.strictObject({ type: z.literal('every') }),
      z.strictObject({
        type: z.literal('threshold'),
        count: wholeNumber(THRESHOLD_COUNT).describe('Matching events (of one group) that make a trigger'),
        windowSeconds: wholeNumber(THRESHOLD_WINDOW_SECONDS).describe('The sliding window, by event timestamp'),
        groupBy: fieldPathSchema.optional().describe('Counts per value of this field (`$customer_id`, `metadata.k`, `amount`); events without it are not counted'),
      }),
      z.strictObject({
        type: z.literal('absence'),
        windowSeconds: wholeNumber(ABSENCE_WINDOW_SECONDS).describe('Silence, in seconds, that triggers the rule'),
      }),
    ],
    { error: `must be an object whose type is one of: ${TRIGGER_TYPES.join(', ')}` },
  )
  .meta({ id: 'RuleTrigger' });

/** The trigger with exactly its own keys (no `groupBy: undefined`), as stored and shown. */
export function plainTrigger(trigger: RuleTrigger): RuleTrigger {
  switch (trigger.type) {
    case 'every':
      return EVERY_MATCH;
    case 'threshold':
      return { type: 'threshold', count: trigger.count, windowSeconds: trigger.windowSeconds, ...(trigger.groupBy === undefined ? {} : { groupBy: trigger.groupBy }) };
    case 'absence':
      return { type: 'absence', windowSeconds: trigger.windowSeconds };
  }
}
