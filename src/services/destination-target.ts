import type { DestinationRecord, DestinationRepository } from '../ports/metadata.js';
import { maskWebhookUrl } from '../delivery/url-mask.js';
import type { DestinationTarget } from '../ports/alert-sender.js';

/** What a sender needs of a destination row: the full url and the signing secret, never for display. */
export function toDestinationTarget(destination: DestinationRecord): DestinationTarget {
  return {
    id: destination.id,
    appId: destination.appId,
    type: destination.type,
    label: destination.label,
    url: destination.url,
    email: destination.email,
    signingSecret: destination.signingSecret,
  };
}

/** How a rule action shows its destination: the masked url (its path is a secret) or the e-mail address. */
export function shownTarget(destination: Pick<DestinationRecord, 'url' | 'email'>): string | null {
  return destination.url !== null ? maskWebhookUrl(destination.url) : destination.email;
}

/** Which destination an attempt goes to: a destination id is looked up within its app only. */
export interface DestinationRef {
  readonly appId: string;
  readonly destinationId: string;
}

export interface DestinationTargets {
  /** Each destination as it is now, or null where it is gone (or belongs to another app), in order. */
  targets(refs: readonly DestinationRef[]): Promise<Array<DestinationTarget | null>>;
}

/**
 * The delivery worker's lookup: the destinations as they are now (an edited url applies to retries; a
 * deleted destination fails the delivery), read fresh for every attempt; the attempts that ask at once
 * share one query per app.
 */
export function destinationTargets(destinations: Pick<DestinationRepository, 'findByIds'>): DestinationTargets {
  return {
    async targets(refs) {
      const idsByApp = new Map<string, Set<string>>();
      for (const { appId, destinationId } of refs) {
        const ids = idsByApp.get(appId) ?? new Set<string>();
        idsByApp.set(appId, ids.add(destinationId));
      }
      const found = await Promise.all([...idsByApp].map(([appId, ids]) => destinations.findByIds(appId, [...ids])));
      const byKey = new Map(found.flat().map((d) => [`${d.appId}/${d.id}`, toDestinationTarget(d)]));
      return refs.map(({ appId, destinationId }) => byKey.get(`${appId}/${destinationId}`) ?? null);
    },
  };
}
