import { z } from 'zod';
import { EVENT_LEVELS, type EventLevel } from './events.js';

/** Alerting's vocabulary: the channels a destination may use, what an alert says, and a delivery's states. */

export const CHANNELS = ['slack', 'discord', 'email', 'webhook'] as const;
export type Channel = (typeof CHANNELS)[number];

/**
 * Why an alert was sent: a matching event (`match`, the `every` trigger), a threshold reached, a
 * silence (`absence`), or the first match after a silence (`recovered`).
 */
export const ALERT_KINDS = ['match', 'threshold', 'absence', 'recovered'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** An action's own wording; placeholders as in alert-template.ts. */
export interface AlertTemplate {
  readonly title?: string | undefined;
  readonly body?: string | undefined;
}

/**
 * The channel-neutral content of one alert: which rule fired on which event. An absence alert has no
 * event: `eventId` is the id its deliveries are recorded under, `timestamp` the deadline that passed,
 * `level` is `warning` and `data` and `metadata` are empty.
 */
export interface AlertContent {
  readonly appId: string;
  readonly appName: string;
  readonly ruleId: string;
  readonly ruleName: string;
  readonly eventId: string;
  readonly eventName: string;
  readonly level: EventLevel;
  readonly customerId: string | null;
  /** ISO 8601, the event's own timestamp. */
  readonly timestamp: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly metadata: Readonly<Record<string, string | number | boolean>>;
  /** True for `POST …/destinations/{id}/test`: the message says it is a test. */
  readonly test: boolean;
  readonly kind: AlertKind;
  /** Threshold alerts: the matching events counted. */
  readonly count?: number | undefined;
  /** Threshold and absence alerts: the rule's window. */
  readonly windowSeconds?: number | undefined;
  /** Threshold alerts with `groupBy`: the group's value as text; null without `groupBy`. */
  readonly group?: string | null | undefined;
  /** The action's template, when it has one: what the message says instead of the default. */
  readonly template?: AlertTemplate | undefined;
}

/** A delivery's state: `pending` until an attempt succeeds (`succeeded`) or it is given up (`failed`). */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * How an attempt went. `in_progress` while its worker holds the delivery; `abandoned` when its lease
 * ran out before the worker recorded an outcome (the worker died, or could not reach the database) and
 * another attempt took over. The receiver may still have got an abandoned attempt.
 */
export const DELIVERY_ATTEMPT_OUTCOMES = ['in_progress', 'succeeded', 'failed', 'abandoned'] as const;
export type DeliveryAttemptOutcome = (typeof DELIVERY_ATTEMPT_OUTCOMES)[number];

/** The alert content as stored in a delivery row, validated when read back (every boundary validates). */
export const alertContentSchema = z
  .object({
    appId: z.string(),
    appName: z.string(),
    ruleId: z.string(),
    ruleName: z.string(),
    eventId: z.string(),
    eventName: z.string(),
    level: z.enum(EVENT_LEVELS),
    customerId: z.string().nullable(),
    timestamp: z.string(),
    data: z.record(z.string(), z.unknown()),
    metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    test: z.boolean(),
    // Deliveries created before alert kinds existed were all matches.
    kind: z.enum(ALERT_KINDS).default('match'),
    count: z.number().optional(),
    windowSeconds: z.number().optional(),
    group: z.string().nullable().optional(),
    template: z.object({ title: z.string().optional(), body: z.string().optional() }).strict().optional(),
  })
  .strict();
