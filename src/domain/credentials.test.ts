import { describe, expect, it } from 'vitest';
import {
  credentialKind,
  digestCredential,
  digestsEqual,
  generateApiKey,
  generateClientSecret,
  maskedHint,
  shownPrefix,
} from './credentials.js';

describe('credentials', () => {
  it('generates keys and secrets of the prefix + base64url form with at least 128 random bits', () => {
    const key = generateApiKey();
    const secret = generateClientSecret();
    expect(key).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);
    expect(secret).toMatch(/^svc_cs_[A-Za-z0-9_-]{43}$/);
    // 43 base64url characters carry 258 bits; far above the required 128.
    expect((key.length - 'svc_live_'.length) * 6).toBeGreaterThanOrEqual(128);
  });

  it('never repeats a value', () => {
    const values = new Set(Array.from({ length: 2000 }, () => generateApiKey()));
    expect(values.size).toBe(2000);
  });

  it('tells the two kinds apart and refuses anything else', () => {
    expect(credentialKind(generateApiKey())).toBe('api_key');
    expect(credentialKind(generateClientSecret())).toBe('client_secret');
    for (const bad of ['', 'svc_live_', 'svc_cs_short', `svc_live_${'a'.repeat(31)}`, `Bearer svc_cs_${'a'.repeat(40)}`, `svc_cs_${'a'.repeat(40)} `, `svc_cs_${'a'.repeat(39)}=`, `svc_test_${'a'.repeat(40)}`]) {
      expect(credentialKind(bad), bad).toBeNull();
    }
  });

  it('digests to lower-case hex SHA-256 and compares digests exactly', () => {
    const digest = digestCredential('svc_cs_example');
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digestsEqual(digest, digestCredential('svc_cs_example'))).toBe(true);
    expect(digestsEqual(digest, digestCredential('svc_cs_examplf'))).toBe(false);
    expect(digestsEqual(digest, '')).toBe(false);
    // FIPS 180-2's test vector, and a non-ASCII value digested as its UTF-8 bytes (what stored digests were made from).
    expect(digestCredential('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(digestCredential('é')).toBe('4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c');
  });

  it('shows the first 12 characters and masks the rest', () => {
    const key = 'svc_live_abcdefghijklmnop';
    expect(shownPrefix(key)).toBe('svc_live_abc');
    expect(maskedHint(shownPrefix(key))).toBe('svc_live_abc…');
  });
});
