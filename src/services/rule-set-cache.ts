import type { MetadataRepositories } from '../ports/metadata.js';
import type { StateStore } from '../ports/state-store.js';
import { compileConditions, fieldAccessor, type CompiledConditions, type Condition, type MatchMode, type RuleEvent } from '../domain/rule-conditions.js';
import type { RuleTrigger } from '../domain/rule-trigger.js';
import type { AlertTemplate } from '../domain/alerting.js';
import type { Logger } from '../observability/logger.js';
import { toDestinationTarget } from './destination-target.js';
import { VersionedCache, type CacheVersions } from './versioned-cache.js';
import { entryOf } from '../lib/map-entry.js';
import type { DestinationTarget } from '../ports/alert-sender.js';

/** One enabled action of a rule, with everything a sender needs of its destination. */
export interface RuleSetAction {
  readonly id: string;
  readonly destination: DestinationTarget;
  readonly template?: AlertTemplate | undefined;
}

/** An enabled rule as the worker evaluates it; `matches` is compiled once per load, not per event. */
export interface RuleSetRule {
  readonly id: string;
  readonly name: string;
  readonly eventName: string;
  readonly match: MatchMode;
  readonly conditions: readonly Condition[];
  readonly matches: CompiledConditions;
  readonly cooldownSeconds: number;
  readonly trigger: RuleTrigger;
  /**
   * A threshold rule's group of an event, as text: '' without `groupBy`, undefined when the event has
   * no value there (it is then not counted).
   */
  readonly groupOf: (event: RuleEvent) => string | undefined;
  /** Epoch milliseconds; 0 when not snoozed. */
  readonly snoozedUntilMs: number;
  readonly actions: readonly RuleSetAction[];
}

/** An app's enabled rules by the event name they watch; an unknown (deleted) app has none. */
export interface AppRuleSet {
  readonly appId: string;
  readonly appName: string;
  readonly rulesByEvent: ReadonlyMap<string, readonly RuleSetRule[]>;
  readonly rulesById: ReadonlyMap<string, RuleSetRule>;
}

/** Bumped after every change to rules, destinations or apps; see VersionedCache. */
export const RULE_SET_VERSION_KEY = 'rules:version';
const TTL_MS = 60_000;
const MAX_APPS = 10_000;

/**
 * The worker's view of an app's rules, cached per process so evaluating an event costs no metadata
 * query. The rules, destinations and apps services call `invalidate()` after every change and before
 * they answer, so every process (API or worker) sees the change on its next `forApp`.
 */
export class RuleSetCache {
  readonly #metadata: Pick<MetadataRepositories, 'apps' | 'rules' | 'destinations'>;
  readonly #logger: Logger;
  readonly #cache: VersionedCache<AppRuleSet>;

  constructor(deps: { metadata: Pick<MetadataRepositories, 'apps' | 'rules' | 'destinations'>; state: StateStore; versions?: CacheVersions | undefined; logger: Logger }) {
    this.#metadata = deps.metadata;
    this.#logger = deps.logger;
    this.#cache = new VersionedCache({ state: deps.state, versions: deps.versions, versionKey: RULE_SET_VERSION_KEY, ttlMs: TTL_MS, maxEntries: MAX_APPS, logger: deps.logger });
  }

  async forApp(appId: string): Promise<AppRuleSet> {
    // #load never returns null, so neither does the cache.
    return (await this.#cache.get(appId, () => this.#load(appId)))!;
  }

  /** Call after committing a change to rules, destinations, or an app's name or existence. */
  invalidate(): Promise<void> {
    return this.#cache.invalidate();
  }

  async #load(appId: string): Promise<AppRuleSet> {
    const app = await this.#metadata.apps.findById(appId);
    if (!app) return { appId, appName: '', rulesByEvent: new Map(), rulesById: new Map() };
    const [rules, destinations] = await Promise.all([this.#metadata.rules.listEnabled(appId), this.#metadata.destinations.listAll(appId)]);
    const targets = new Map(destinations.map((d) => [d.id, toDestinationTarget(d)]));
    const rulesByEvent = new Map<string, RuleSetRule[]>();
    const rulesById = new Map<string, RuleSetRule>();
    for (const rule of rules) {
      const actions: RuleSetAction[] = [];
      for (const action of rule.actions) {
        if (!action.enabled) continue;
        const destination = targets.get(action.destinationId);
        // Possible only after a destination deletion raced a rule write (see destinations.service.ts).
        if (!destination) {
          this.#logger.warn({ appId, ruleId: rule.id, actionId: action.id }, 'rule action refers to a missing destination; skipped');
          continue;
        }
        actions.push({ id: action.id, destination, template: action.template });
      }
      const entry: RuleSetRule = {
        id: rule.id,
        name: rule.name,
        eventName: rule.eventName,
        match: rule.match,
        conditions: rule.conditions,
        matches: compileConditions(rule.conditions, rule.match),
        cooldownSeconds: rule.cooldownSeconds,
        trigger: rule.trigger,
        groupOf: groupReader(rule.trigger),
        snoozedUntilMs: rule.snoozedUntil?.getTime() ?? 0,
        actions,
      };
      rulesById.set(rule.id, entry);
      entryOf(rulesByEvent, rule.eventName, () => []).push(entry);
    }
    return { appId, appName: app.name, rulesByEvent, rulesById };
  }
}

/** How a rule finds an event's threshold group; see RuleSetRule.groupOf. */
export function groupReader(trigger: RuleTrigger): (event: RuleEvent) => string | undefined {
  if (trigger.type !== 'threshold' || trigger.groupBy === undefined) return () => '';
  const read = fieldAccessor(trigger.groupBy);
  return (event) => {
    const value = read(event);
    if (value === undefined || value === null) return undefined;
    return typeof value === 'string' ? value : JSON.stringify(value);
  };
}
