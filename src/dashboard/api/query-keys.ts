/**
 * Every cache key in one place, so a change can invalidate exactly what it affects
 * (a new destination refreshes the destination list and the rule editor's choices alike).
 */
export const queryKeys = {
  apps: ['apps'] as const,
  app: (appId: string) => ['apps', appId] as const,
  schemas: (appId: string) => ['apps', appId, 'schemas'] as const,
  destinations: (appId: string) => ['apps', appId, 'destinations'] as const,
  rules: (appId: string) => ['apps', appId, 'rules'] as const,
  events: (appId: string) => ['apps', appId, 'events'] as const,
  /** Under `events`: a new event refreshes an open one too (it may be the one that was missing). */
  event: (appId: string, eventId: string) => ['apps', appId, 'events', 'one', eventId] as const,
  /** The overview's counts and top lists. */
  stats: (appId: string) => ['apps', appId, 'stats'] as const,
  deliveries: (appId: string) => ['apps', appId, 'deliveries'] as const,
  /** Under `deliveries`: whatever refreshes the log refreshes an open delivery's attempts too. */
  delivery: (appId: string, deliveryId: string) => ['apps', appId, 'deliveries', 'one', deliveryId] as const,
  /** The editor's preview and dry-run of a draft rule, by the draft's JSON. */
  ruleCheck: (appId: string, check: 'preview' | 'dry-run', draft: string) => ['apps', appId, 'rule-checks', check, draft] as const,
  defaultMetadata: (appId: string) => ['apps', appId, 'default-metadata'] as const,
  clientSecrets: ['client-secrets'] as const,
};

/** Lists other than events and deliveries take limit and offset; one page of the maximum covers a dashboard. */
export const LIST_QUERY = { limit: 1000 } as const;
