import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The two credentials: the API key (ingest) and the client secret (management). Values are
 * `prefix + base64url(random bytes)`: 32 random bytes (256 bits, well past the 128 bits of randomness
 * a credential must carry) give 43 URL-safe characters. Only the SHA-256 digest is ever stored; the
 * value appears once, in the create or rotate response.
 */
export const API_KEY_PREFIX = 'svc_live_';
export const CLIENT_SECRET_PREFIX = 'svc_cs_';

const RANDOM_BYTES = 32;
const BODY = '[A-Za-z0-9_-]{32,128}';
const API_KEY_FORM = new RegExp(`^${API_KEY_PREFIX}${BODY}$`);
const CLIENT_SECRET_FORM = new RegExp(`^${CLIENT_SECRET_PREFIX}${BODY}$`);

/** `apiKeyPrefix` (the first 12 characters of the key) and the masked hint built from it. */
export const SHOWN_PREFIX_LENGTH = 12;

export type CredentialKind = 'api_key' | 'client_secret';

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(RANDOM_BYTES).toString('base64url');
}

export function generateClientSecret(): string {
  return CLIENT_SECRET_PREFIX + randomBytes(RANDOM_BYTES).toString('base64url');
}

/** Which credential a presented value claims to be, by its exact form; null for anything else. */
export function credentialKind(value: string): CredentialKind | null {
  if (API_KEY_FORM.test(value)) return 'api_key';
  if (CLIENT_SECRET_FORM.test(value)) return 'client_secret';
  return null;
}

/**
 * Lower-case hex SHA-256: what the metadata store keeps and looks up. Every authenticated request
 * takes one, so through the one-shot `hash`, which for a short input costs about a third of a Hash
 * object's create, update and digest.
 */
export function digestCredential(value: string): string {
  return hash('sha256', value, 'hex');
}

/** Constant-time comparison of two hex digests (a lookup hit is confirmed without a timing signal). */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

export function shownPrefix(value: string): string {
  return value.slice(0, SHOWN_PREFIX_LENGTH);
}

/** The masked form shown in listings: the prefix followed by an ellipsis. */
export function maskedHint(prefix: string): string {
  return `${prefix}…`;
}
