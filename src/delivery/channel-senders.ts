/**
 * The AlertSender: one attempt to deliver one alert to one destination, in the destination's own
 * format. Slack, Discord and signed webhooks go through the guarded OutboundHttp client; e-mail goes
 * through the Mailer. The result says whether a retry can help; the delivery loop decides.
 */
import type { Logger } from '../observability/logger.js';
import { buildWebhookBody } from './alert-format.js';
import { classifyRequestError, classifyResponse, failed, succeeded } from './delivery-outcome.js';
import type { OutboundHttp } from './delivery-types.js';
import { buildDiscordMessage } from './discord-message.js';
import { buildEmailMessage } from './email-message.js';
import { MailSendError, type Mailer } from './mailer.js';
import { buildSlackMessage } from './slack-message.js';
import { maskWebhookUrl } from './url-mask.js';
import { signWebhook } from './webhook-signature.js';
import type { AlertContent } from '../domain/alerting.js';
import type { AlertSender, DeliveryAttemptResult, DestinationTarget } from '../ports/alert-sender.js';

export const DEFAULT_USER_AGENT = 'event-alerting-webhooks/1.0';

export interface AlertSenderDeps {
  readonly http: OutboundHttp;
  /** Null when no SMTP_URL is configured: e-mail deliveries then fail without retrying. */
  readonly mailer: Mailer | null;
  readonly logger: Logger;
  readonly now?: () => Date;
  readonly userAgent?: string;
}

export const EMAIL_NOT_CONFIGURED = 'e-mail is not configured (SMTP_URL)';

/** The parts of a URL a receiver's error body must not repeat back into our logs and API. */
function urlSecrets(url: string): string[] {
  try {
    const { pathname, search } = new URL(url);
    return [pathname + search, pathname, search.slice(1)];
  } catch {
    return [url];
  }
}

export function createAlertSender(deps: AlertSenderDeps): AlertSender {
  const now = deps.now ?? (() => new Date());
  const userAgent = deps.userAgent ?? DEFAULT_USER_AGENT;

  async function postJson(url: string, body: string, extraHeaders: Record<string, string> = {}): Promise<DeliveryAttemptResult> {
    const headers = { 'content-type': 'application/json', 'user-agent': userAgent, ...extraHeaders };
    try {
      const response = await deps.http.post(url, body, headers);
      return classifyResponse(response, now(), urlSecrets(url));
    } catch (error) {
      return classifyRequestError(error);
    }
  }

  async function sendWebhook(url: string, secret: string, alert: AlertContent, deliveryId: string): Promise<DeliveryAttemptResult> {
    const sentAt = now();
    const body = JSON.stringify(buildWebhookBody(alert, sentAt));
    // The timestamp is this attempt's, so a retry an hour later is not refused as a replay; the id
    // stays the delivery's, so the receiver can tell the retry from a new alert.
    const timestamp = Math.floor(sentAt.getTime() / 1000);
    let signature: string;
    try {
      signature = signWebhook(secret, deliveryId, timestamp, body);
    } catch {
      return failed('the destination signing secret is unusable', false);
    }
    return postJson(url, body, {
      'webhook-id': deliveryId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature,
    });
  }

  async function sendEmail(to: string, alert: AlertContent): Promise<DeliveryAttemptResult> {
    if (deps.mailer === null) return failed(EMAIL_NOT_CONFIGURED, false);
    try {
      await deps.mailer.send({ to, ...buildEmailMessage(alert) });
      return succeeded(null);
    } catch (error) {
      if (error instanceof MailSendError) return failed(error.message, error.retriable);
      return failed('unexpected error while sending the e-mail', true);
    }
  }

  async function attempt(destination: DestinationTarget, alert: AlertContent, deliveryId: string): Promise<DeliveryAttemptResult> {
    const { type, url } = destination;
    switch (type) {
      case 'email':
        return destination.email
          ? sendEmail(destination.email, alert)
          : failed('the destination has no e-mail address', false);
      case 'slack':
        return url ? postJson(url, JSON.stringify(buildSlackMessage(alert))) : failed('the destination has no URL', false);
      case 'discord':
        return url ? postJson(url, JSON.stringify(buildDiscordMessage(alert))) : failed('the destination has no URL', false);
      case 'webhook':
        if (!url) return failed('the destination has no URL', false);
        if (!destination.signingSecret) return failed('the destination has no signing secret', false);
        return sendWebhook(url, destination.signingSecret, alert, deliveryId);
      default: {
        const unknown: never = type;
        return failed(`unknown destination type ${String(unknown)}`, false);
      }
    }
  }

  return {
    async send(destination, alert, deliveryId) {
      const result = await attempt(destination, alert, deliveryId);
      // Only the masked URL is logged, never the e-mail address or the signing secret.
      const context = {
        deliveryId,
        appId: destination.appId,
        destinationId: destination.id,
        channel: destination.type,
        target: destination.url ? maskWebhookUrl(destination.url) : undefined,
        status: result.status,
      };
      if (result.ok) {
        deps.logger.debug(context, 'alert delivered');
      } else {
        deps.logger.warn(
          { ...context, retriable: result.retriable, retryAfterMs: result.retryAfterMs, error: result.error },
          'alert delivery attempt failed',
        );
      }
      return result;
    },
  };
}
