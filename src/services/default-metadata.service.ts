import type { MetadataStore } from '../ports/metadata.js';
import type { MetadataValue } from '../domain/default-metadata.js';
import { notFound, requireApp } from './app-lookup.js';
import type { IngestConfigCache } from './ingest-config.js';

export interface DefaultMetadataDeps {
  readonly metadata: MetadataStore;
  /** Told about every change, so ingest merges the new defaults from the next request on. */
  readonly ingestConfig: Pick<IngestConfigCache, 'changed'>;
}

/**
 * An app's default metadata, kept on the app row: it is read with the app on every ingest, and at
 * most 50 small values it does not need a table of its own.
 */
export class DefaultMetadataService {
  constructor(private readonly deps: DefaultMetadataDeps) {}

  async get(accountId: string, appIdOrSlug: string): Promise<Readonly<Record<string, MetadataValue>>> {
    return (await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug)).defaultMetadata;
  }

  /** PUT semantics: the given object becomes the whole default metadata; `{}` clears it. */
  async replace(accountId: string, appIdOrSlug: string, values: Readonly<Record<string, MetadataValue>>): Promise<Readonly<Record<string, MetadataValue>>> {
    const app = await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug);
    // Only a real change is written, so the app's `updatedAt` means "last changed".
    if (sameEntries(app.defaultMetadata, values)) return app.defaultMetadata;
    const updated = await this.deps.metadata.apps.update(app.id, { defaultMetadata: { ...values } });
    if (!updated) throw notFound();
    await this.deps.ingestConfig.changed();
    return updated.defaultMetadata;
  }
}

function sameEntries(a: Readonly<Record<string, MetadataValue>>, b: Readonly<Record<string, MetadataValue>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && Object.is(a[key], b[key]));
}
