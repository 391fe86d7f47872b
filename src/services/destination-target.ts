import type { Destination } from '../adapters/metadata/entities/destination.entity.js';
import type { MetadataStore } from '../adapters/metadata/metadata-store.js';
import { findDestinationById } from '../adapters/metadata/repositories/destination-repository.js';
import type { DestinationTarget } from '../delivery/delivery-types.js';
import { maskWebhookUrl } from '../delivery/url-mask.js';

/** What a sender needs of a destination row: the full url and the signing secret, never for display. */
export function toDestinationTarget(destination: Destination): DestinationTarget {
  return {
    id: destination.id,
    appId: destination.app.id,
    type: destination.type,
    label: destination.label,
    url: destination.url,
    email: destination.email,
    signingSecret: destination.signingSecret,
  };
}

/** How a rule action shows its destination: the masked url (its path is a secret) or the e-mail address. */
export function shownTarget(destination: Pick<Destination, 'url' | 'email'>): string | null {
  return destination.url !== null ? maskWebhookUrl(destination.url) : destination.email;
}

/**
 * The delivery worker's lookup: the destination as it is now (an edited url applies to retries; a
 * deleted destination fails the delivery), read fresh for every attempt.
 */
export function destinationTargets(metadata: MetadataStore): { target(appId: string, destinationId: string): Promise<DestinationTarget | null> } {
  return {
    async target(appId, destinationId) {
      const destination = await findDestinationById(metadata.em(), appId, destinationId);
      return destination ? toDestinationTarget(destination) : null;
    },
  };
}
