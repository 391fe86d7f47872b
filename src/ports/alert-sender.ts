import type { AlertContent, Channel } from '../domain/alerting.js';

/** The alert sender port: one alert to one destination (src/delivery/channel-senders.ts implements it). */

/** What a sender needs of a destination; the signing secret exists for `webhook` destinations only. */
export interface DestinationTarget {
  readonly id: string;
  readonly appId: string;
  readonly type: Channel;
  readonly label: string;
  readonly url: string | null;
  readonly email: string | null;
  readonly signingSecret: string | null;
}

/**
 * The outcome of one attempt. `retriable` is the sender's verdict (network error, timeout, 429, 5xx);
 * `retryAfterMs` carries a receiver's `Retry-After`. `error` is safe to show and to log: it never
 * holds a webhook URL's secret path or a signing secret.
 */
export interface DeliveryAttemptResult {
  readonly ok: boolean;
  readonly retriable: boolean;
  /** The receiver's HTTP status; null when no HTTP response came (network error, timeout, e-mail). */
  readonly status: number | null;
  readonly error: string | null;
  readonly retryAfterMs: number | null;
}

/**
 * Sends one alert to one destination, once. `deliveryId` is stable across the retries of a delivery
 * (the `webhook-id` of the Standard Webhooks signature).
 */
export interface AlertSender {
  send(destination: DestinationTarget, alert: AlertContent, deliveryId: string): Promise<DeliveryAttemptResult>;
}

