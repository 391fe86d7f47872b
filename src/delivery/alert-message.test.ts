import { describe, expect, it } from 'vitest';
import { sampleAlert } from '../../test/helpers/alerts.js';
import { buildWebhookBody } from './alert-format.js';
import { renderedMessage } from './alert-message.js';
import { buildDiscordMessage } from './discord-message.js';
import { buildEmailMessage } from './email-message.js';
import { buildSlackMessage } from './slack-message.js';
import { CHANNELS, type AlertContent } from '../domain/alerting.js';

/** What each channel actually sends as its title and body, read from the built message. */
function sent(channel: (typeof CHANNELS)[number], alert: AlertContent): { title: string; body: string } {
  switch (channel) {
    case 'slack': {
      const message = buildSlackMessage(alert);
      const header = message.blocks[0];
      const section = message.blocks.find((b) => b.type === 'section' && b.text !== undefined && !b.text.text.startsWith('*Data*'));
      return {
        title: header?.type === 'header' ? header.text.text : '',
        body: section?.type === 'section' && section.text ? section.text.text : '',
      };
    }
    case 'discord': {
      const embed = buildDiscordMessage(alert).embeds[0]!;
      return { title: embed.title, body: embed.description };
    }
    case 'email': {
      const mail = buildEmailMessage(alert);
      return { title: mail.subject, body: mail.text.split('\n\n')[0]! };
    }
    case 'webhook':
      return buildWebhookBody(alert, new Date()).data.message;
  }
}

describe('renderedMessage', () => {
  const alert = sampleAlert({
    kind: 'threshold',
    count: 3,
    windowSeconds: 60,
    group: 'eu',
    data: { note: '<!here> *x* @everyone [l](https://e) <b>' },
    template: { title: '{{count}} in {{windowSeconds}} s ({{group}})', body: 'Note {{data.note}}\non {{app.name}}' },
  });

  it.each(CHANNELS)('is exactly what %s sends', (channel) => {
    expect(renderedMessage(channel, alert)).toEqual(sent(channel, alert));
    const plain = sampleAlert({ kind: 'absence', data: {}, windowSeconds: 900 });
    expect(renderedMessage(channel, plain)).toEqual(sent(channel, plain));
  });

  it('escapes values for each channel', () => {
    expect(renderedMessage('slack', alert).body).toBe('Note &lt;!here&gt; \u2217x\u2217 @everyone [l](https://e) &lt;b&gt;\non Shop');
    expect(renderedMessage('discord', alert).body).toBe('Note \\<!here\\> \\*x\\* @\u200beveryone \\[l\\](https://e) \\<b\\>\non Shop');
    expect(renderedMessage('email', alert)).toEqual({ title: '3 in 60 s (eu)', body: 'Note <!here> *x* @everyone [l](https://e) <b>\non Shop' });
    expect(renderedMessage('webhook', alert)).toEqual({ title: '3 in 60 s (eu)', body: 'Note <!here> *x* @everyone [l](https://e) <b>\non Shop' });
  });
});
