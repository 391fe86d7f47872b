import { z } from 'zod';
import { EVENT_LEVELS, type EventLevel } from './events.js';

/** Alerting's vocabulary: the channels a destination may use, what an alert says, and a delivery's states. */

export const CHANNELS = ['slack', 'discord', 'email', 'webhook'] as const;
export type Channel = (typeof CHANNELS)[number];

/** The channel-neutral content of one alert: which rule fired on which event. */
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
}

/** A delivery's state: `pending` until an attempt succeeds (`succeeded`) or it is given up (`failed`). */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

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
  })
  .strict();
