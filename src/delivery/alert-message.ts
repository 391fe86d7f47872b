/**
 * The words of an alert as each channel sends them, for the template preview: the same functions the
 * channel formats build their messages with, so a preview can never differ from what is sent.
 */
import { webhookMessage } from './alert-format.js';
import { discordText } from './discord-message.js';
import { emailText } from './email-message.js';
import { slackText } from './slack-message.js';
import type { AlertContent, Channel } from '../domain/alerting.js';

export interface RenderedMessage {
  readonly title: string;
  readonly body: string;
}

/**
 * The title and body text `channel` would send for `alert` (its template applied, if it has one):
 * Slack: the header (plain text) and the mrkdwn text with escaped values; Discord: the embed's title
 * and description, markdown with escaped values; e-mail: the subject and the plain-text body (the
 * HTML part shows the same text HTML-escaped); webhook: the body's `message`, plain text.
 */
export function renderedMessage(channel: Channel, alert: AlertContent): RenderedMessage {
  switch (channel) {
    case 'slack':
      return slackText(alert);
    case 'discord':
      return discordText(alert);
    case 'email':
      return emailText(alert);
    case 'webhook':
      return webhookMessage(alert);
  }
}
