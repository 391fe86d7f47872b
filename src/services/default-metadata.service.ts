import type { MetadataStore } from '../adapters/metadata/metadata-store.js';
import type { MetadataValue } from '../domain/default-metadata.js';
import { requireApp } from './app-lookup.js';
import type { IngestConfigCache } from './ingest-config.js';

/**
 * An app's default metadata, kept on the app row: it is read with the app on every ingest, and at
 * most 50 small values it does not need a table of its own.
 */
export interface DefaultMetadataDeps {
  readonly metadata: MetadataStore;
  /** Told about every change, so ingest merges the new defaults from the next request on. */
  readonly ingestConfig: IngestConfigCache;
}

export async function getDefaultMetadata(deps: DefaultMetadataDeps, accountId: string, appIdOrSlug: string): Promise<Record<string, MetadataValue>> {
  const app = await requireApp(deps.metadata.em(), accountId, appIdOrSlug);
  return app.defaultMetadata;
}

/** PUT semantics: the given object becomes the whole default metadata; `{}` clears it. */
export async function replaceDefaultMetadata(
  deps: DefaultMetadataDeps,
  accountId: string,
  appIdOrSlug: string,
  values: Record<string, MetadataValue>,
): Promise<Record<string, MetadataValue>> {
  const em = deps.metadata.em();
  const app = await requireApp(em, accountId, appIdOrSlug);
  // Only a real change is written, so the app's `updatedAt` means "last changed".
  if (!sameEntries(app.defaultMetadata, values)) {
    app.defaultMetadata = { ...values };
    await em.flush();
    await deps.ingestConfig.changed();
  }
  return app.defaultMetadata;
}

function sameEntries(a: Readonly<Record<string, MetadataValue>>, b: Readonly<Record<string, MetadataValue>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && Object.is(a[key], b[key]));
}
