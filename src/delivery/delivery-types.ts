/**
 * The ports between alerting's parts: the rules and destinations services, the worker that evaluates
 * rules, and the channel senders (Slack, Discord, e-mail, signed webhook) behind the one guarded
 * outbound HTTP client. Kept free of I/O so each side can be built and tested on its own.
 */

export const CHANNELS = ['slack', 'discord', 'email', 'webhook'] as const;
export type Channel = (typeof CHANNELS)[number];

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

/** The channel-neutral content of one alert: which rule fired on which event. */
export interface AlertContent {
  readonly appId: string;
  readonly appName: string;
  readonly ruleId: string;
  readonly ruleName: string;
  readonly eventId: string;
  readonly eventName: string;
  readonly level: 'info' | 'warning' | 'error' | 'success';
  readonly customerId: string | null;
  /** ISO 8601, the event's own timestamp. */
  readonly timestamp: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly metadata: Readonly<Record<string, string | number | boolean>>;
  /** True for `POST …/destinations/{id}/test`: the message says it is a test. */
  readonly test: boolean;
}

/**
 * The outcome of one attempt. `retriable` is the sender's verdict (network error, timeout, 429, 5xx);
 * `retryAfterMs` carries a receiver's `Retry-After`. `error` is safe to show and to log: it never
 * holds a webhook URL's secret path or a signing secret.
 */
export interface DeliveryAttemptResult {
  readonly ok: boolean;
  readonly retriable: boolean;
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

/** A receiver's answer as the outbound client returns it; a 3xx is returned, never followed. */
export interface OutboundResponse {
  readonly status: number;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** At most the client's body cap, decoded as UTF-8 (enough to explain a failure). */
  readonly body: string;
}

export type OutboundFailure = 'blocked_address' | 'invalid_url' | 'timeout' | 'network';

/** Why the outbound client did not get a response. `message` never holds the URL's path or query. */
export class OutboundError extends Error {
  override readonly name = 'OutboundError';
  constructor(
    readonly reason: OutboundFailure,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
  }
}

/** The one outbound HTTP client every delivery uses (src/delivery/outbound-http.ts implements it). */
export interface OutboundHttp {
  post(url: string, body: string, headers: Readonly<Record<string, string>>): Promise<OutboundResponse>;
}

/**
 * State keys of a rule: its counters (the worker writes them, the rules API reads them), its cooldown
 * and the per-event record that keeps a redelivered event from triggering it twice. All share the
 * `{rule:<id>}` hash tag, so in a Redis Cluster they live in one slot and one script may touch them all.
 */
export const ruleStatKeys = (
  ruleId: string,
): { readonly triggers: string; readonly lastTriggeredAt: string; readonly cooldown: string; readonly fired: (eventId: string) => string } => ({
  triggers: `{rule:${ruleId}}:triggers`,
  lastTriggeredAt: `{rule:${ruleId}}:last-triggered-at`,
  cooldown: `{rule:${ruleId}}:cooldown`,
  fired: (eventId) => `{rule:${ruleId}}:fired:${eventId}`,
});
