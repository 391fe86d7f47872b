/** An event as the service stores and reads it, and the levels an event may have. */

export const EVENT_LEVELS = ['info', 'warning', 'error', 'success'] as const;

/**
 * How far past the moment it is accepted an event's time may lie. More than 24 h in the future is a
 * client clock or unit error, not an event.
 */
export const MAX_EVENT_FUTURE_MS = 24 * 60 * 60 * 1000;

export type EventLevel = (typeof EVENT_LEVELS)[number];

export type MetadataValue = string | number | boolean;

export interface StoredEvent {
  /**
   * UUIDv7 assigned at ingestion, in lowercase canonical text; the event's identity across
   * redeliveries. A redelivered copy carries the same id, appId and timestamp: deduplication relies
   * on the three together.
   */
  readonly id: string;
  readonly appId: string;
  readonly event: string;
  readonly customerId: string | null;
  readonly level: EventLevel;
  readonly data: Readonly<Record<string, unknown>>;
  readonly metadata: Readonly<Record<string, MetadataValue>>;
  /** Event time, millisecond precision. */
  readonly timestamp: Date;
  readonly ingestedAt: Date;
}
