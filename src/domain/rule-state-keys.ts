/**
 * State keys of a rule: its counters (the worker writes them, the rules API reads them), its cooldown
 * and the per-event record that keeps a redelivered event from triggering it twice. All share the
 * `{rule:<id>}` hash tag, so in a Redis Cluster they live in one slot and one script may touch them all.
 */
export const ruleStatKeys = (
  ruleId: string,
): { readonly triggers: string; readonly lastTriggeredAt: string; readonly cooldown: string; readonly fired: (eventId: string) => string } => ({
  triggers: `{rule:${ruleId}}:triggers`,
  lastTriggeredAt: `{rule:${ruleId}}:last-triggered-at`,
  cooldown: `{rule:${ruleId}}:cooldown`,
  fired: (eventId) => `{rule:${ruleId}}:fired:${eventId}`,
});
