/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the receiver recomputes
 * HMAC-SHA256 over `${webhook-id}.${webhook-timestamp}.${body}` with the shared secret and compares
 * it with `webhook-signature`. Secrets look like `whsec_<base64>`; the key is the decoded base64 part.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** 32 random bytes: within the spec's 24 to 64, and the HMAC-SHA256 output length RFC 2104 sets as the minimum key. */
const SECRET_BYTES = 32;

export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  // Buffer.from skips characters that are not base64, so a mangled secret shows up as an empty key.
  if (key.length === 0) throw new Error('webhook signing secret is empty or not base64');
  return key;
}

/**
 * The `webhook-signature` header value for one message: `v1,<base64 signature>`. `id` must be the
 * same for every retry of a delivery so receivers can drop duplicates; `timestampSeconds` is the
 * attempt's own Unix time, which receivers check against replay.
 */
export function signWebhook(secret: string, id: string, timestampSeconds: number, payload: string): string {
  if (!Number.isSafeInteger(timestampSeconds)) throw new Error('webhook timestamp must be whole seconds');
  const signature = createHmac('sha256', secretKey(secret))
    .update(`${id}.${timestampSeconds}.${payload}`, 'utf8')
    .digest('base64');
  return `v1,${signature}`;
}
