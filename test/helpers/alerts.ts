import type { AlertContent } from '../../src/domain/alerting.js';
import type { DestinationTarget } from '../../src/ports/alert-sender.js';

/** A realistic alert; each test overrides what it is about. */
export function sampleAlert(overrides: Partial<AlertContent> = {}): AlertContent {
  return {
    appId: 'app_01',
    appName: 'Shop',
    ruleId: 'rule_01',
    ruleName: 'Large failed payment',
    eventId: 'evt_01',
    eventName: 'payment.failed',
    level: 'error',
    customerId: 'cus_42',
    timestamp: '2024-05-01T12:34:56.000Z',
    data: { amount: 1250, currency: 'EUR', card: { brand: 'visa', last4: '4242' } },
    metadata: { region: 'eu', retried: false },
    test: false,
    kind: 'match',
    ...overrides,
  };
}

export function destination(overrides: Partial<DestinationTarget> & Pick<DestinationTarget, 'type'>): DestinationTarget {
  return {
    id: `dst_${overrides.type}`,
    appId: 'app_01',
    label: `${overrides.type} destination`,
    url: null,
    email: null,
    signingSecret: null,
    ...overrides,
  };
}

/** `count` data fields named f00, f01, … each holding `valueLength` characters. */
export function manyFields(count: number, valueLength = 10): Record<string, string> {
  return Object.fromEntries(
    Array.from({ length: count }, (_, i) => [`f${String(i).padStart(2, '0')}`, 'x'.repeat(valueLength)]),
  );
}
