import { v7 as uuidv7 } from 'uuid';
import type { ConsumedBatch, ConsumedMessage } from '../../src/ports/message-bus.js';
import type { StoredEvent } from '../../src/domain/events.js';
import type { OutgoingMessage } from '../../src/domain/messages/outgoing-message.js';
import { compileConditions, type Condition } from '../../src/domain/rule-conditions.js';
import { groupReader, type AppRuleSet, type RuleSetRule } from '../../src/services/rule-set-cache.js';
import { EVERY_MATCH, type RuleTrigger } from '../../src/domain/rule-trigger.js';
import type { AlertTemplate } from '../../src/domain/alerting.js';
import { createLogger } from '../../src/observability/logger.js';

/** A silent logger for the pipeline's unit tests. */
export const quietLogger = createLogger({ level: 'silent' });

export function storedEvent(appId: string, event: string, data: Record<string, unknown> = {}, overrides: Partial<StoredEvent> = {}): StoredEvent {
  return {
    id: uuidv7(),
    appId,
    event,
    customerId: null,
    level: 'info',
    data,
    metadata: {},
    timestamp: new Date('2026-01-02T03:04:05.678Z'),
    ingestedAt: new Date('2026-01-02T03:04:05.700Z'),
    ...overrides,
  };
}

/**
 * An event's entry as a JSON object, as v1 and v2 event messages carried it: every field but the app,
 * times in milliseconds since the epoch.
 */
export function entryObject(event: StoredEvent): Record<string, unknown> {
  const { appId: _appId, timestamp, ingestedAt, ...rest } = event;
  return { ...rest, timestamp: timestamp.getTime(), ingestedAt: ingestedAt.getTime() };
}

/** Outgoing bus messages as a consumer would receive them, at consecutive offsets of one partition. */
export function consumedBatch(messages: readonly OutgoingMessage[], topic = 'events'): ConsumedBatch {
  return {
    topic,
    partition: 3,
    messages: messages.map(
      (message, i): ConsumedMessage => ({ topic, partition: 3, offset: String(100 + i), key: message.key, value: message.value, headers: message.headers ?? {} }),
    ),
  };
}

/** A rule set with one rule per entry, each with one action to a webhook destination. */
export function ruleSetOf(
  appId: string,
  rules: ReadonlyArray<{ id: string; eventName: string; conditions?: Condition[]; cooldownSeconds?: number; trigger?: RuleTrigger; snoozedUntilMs?: number; template?: AlertTemplate }>,
): AppRuleSet {
  const byEvent = new Map<string, RuleSetRule[]>();
  const byId = new Map<string, RuleSetRule>();
  for (const r of rules) {
    const conditions = r.conditions ?? [];
    const rule: RuleSetRule = {
      id: r.id,
      name: `rule ${r.id}`,
      eventName: r.eventName,
      match: 'all',
      conditions,
      matches: compileConditions(conditions, 'all'),
      cooldownSeconds: r.cooldownSeconds ?? 0,
      trigger: r.trigger ?? EVERY_MATCH,
      groupOf: groupReader(r.trigger ?? EVERY_MATCH),
      snoozedUntilMs: r.snoozedUntilMs ?? 0,
      actions: [
        {
          id: `${r.id}-action`,
          template: r.template,
          destination: { id: `${r.id}-destination`, appId, type: 'webhook', label: 'hook', url: 'http://127.0.0.1:9/hook', email: null, signingSecret: 'whsec_test' },
        },
      ],
    };
    byEvent.set(r.eventName, [...(byEvent.get(r.eventName) ?? []), rule]);
    byId.set(r.id, rule);
  }
  return { appId, appName: 'Shop', rulesByEvent: byEvent, rulesById: byId };
}

/** App ids of the fixtures' events (bus messages carry canonical UUIDs). */
export const APP_A = '0190a6c8-0000-7000-8000-00000000000a';
export const APP_B = '0190a6c8-0000-7000-8000-00000000000b';
