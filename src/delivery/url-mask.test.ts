import { describe, expect, it } from 'vitest';
import { maskWebhookUrl } from './url-mask.js';

describe('maskWebhookUrl', () => {
  it.each([
    ['https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXX', 'https://hooks.slack.com/services/…'],
    ['https://hooks.slack.com/triggers/T000/123/abc', 'https://hooks.slack.com/triggers/…'],
    ['https://discord.com/api/webhooks/123456/abcdef-token', 'https://discord.com/api/webhooks/…'],
    ['https://discordapp.com/api/v10/webhooks/123/abc?wait=true', 'https://discordapp.com/api/v10/webhooks/…'],
    ['https://example.com/hooks/abc?token=x', 'https://example.com/…'],
    ['https://example.com/?token=x', 'https://example.com/…'],
    ['http://127.0.0.1:8080/receiver', 'http://127.0.0.1:8080/…'],
    ['https://example.com', 'https://example.com/'],
  ])('%s -> %s', (url, masked) => {
    expect(maskWebhookUrl(url)).toBe(masked);
  });

  it('drops credentials in the authority', () => {
    expect(maskWebhookUrl('https://user:s3cret@example.com/x')).toBe('https://example.com/…');
  });

  it('masks a Discord path that is not the webhook route whole', () => {
    expect(maskWebhookUrl('https://discord.com/other/secret')).toBe('https://discord.com/…');
  });

  it('masks the fragment too', () => {
    expect(maskWebhookUrl('https://hooks.slack.com/services#secret')).toBe('https://hooks.slack.com/services/…');
  });

  it('masks a string that is not a URL whole', () => {
    const masked = maskWebhookUrl('not a url with a secret');
    expect(masked).not.toContain('secret');
  });
});
