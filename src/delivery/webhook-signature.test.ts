import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, signWebhook } from './webhook-signature.js';

// `standardwebhooks` is the spec authors' own library: an independent verifier of our signatures.
function headers(id: string, timestamp: number, signature: string): Record<string, string> {
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
}

describe('generateWebhookSecret', () => {
  it('is whsec_ followed by 32 random bytes in base64', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });
});

describe('signWebhook', () => {
  const payload = JSON.stringify({ type: 'alert.triggered', data: { n: 1, text: 'héllo ✓' } });
  const now = Math.floor(Date.now() / 1000);

  it('is accepted by the Standard Webhooks reference verifier', () => {
    const secret = generateWebhookSecret();
    const signature = signWebhook(secret, 'msg_1', now, payload);
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(payload, headers('msg_1', now, signature))).toEqual(JSON.parse(payload));
  });

  it('is rejected when the payload, id or timestamp was tampered with, or the secret differs', () => {
    const secret = generateWebhookSecret();
    const signature = signWebhook(secret, 'msg_1', now, payload);
    const verifier = new Webhook(secret);
    expect(() => verifier.verify(payload.replace('1', '2'), headers('msg_1', now, signature))).toThrow(WebhookVerificationError);
    expect(() => verifier.verify(payload, headers('msg_2', now, signature))).toThrow(WebhookVerificationError);
    expect(() => verifier.verify(payload, headers('msg_1', now - 1, signature))).toThrow(WebhookVerificationError);
    expect(() => new Webhook(generateWebhookSecret()).verify(payload, headers('msg_1', now, signature))).toThrow(
      WebhookVerificationError,
    );
  });

  it('matches the reference library signature for the same input', () => {
    const secret = generateWebhookSecret();
    const at = new Date(now * 1000);
    expect(signWebhook(secret, 'msg_x', now, payload)).toBe(new Webhook(secret).sign('msg_x', at, payload));
  });

  it('refuses an unusable secret or a fractional timestamp', () => {
    expect(() => signWebhook('whsec_', 'id', now, payload)).toThrow(/secret/);
    expect(() => signWebhook(generateWebhookSecret(), 'id', 1.5, payload)).toThrow(/seconds/);
  });
});
