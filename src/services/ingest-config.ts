import type { MetadataRepositories } from '../ports/metadata.js';
import type { StateStore } from '../ports/state-store.js';
import type { SchemaField } from '../domain/event-schema.js';
import type { Logger } from '../observability/logger.js';
import { VersionedCache, type CacheVersions } from './versioned-cache.js';
import type { Awaitable } from '../lib/awaitable.js';
import type { MetadataValue } from '../domain/events.js';

/** What ingest needs of an app besides its key: default metadata and the schemas to check against. */
export interface IngestConfig {
  readonly defaultMetadata: Readonly<Record<string, MetadataValue>>;
  readonly schemas: ReadonlyMap<string, { readonly fields: readonly SchemaField[]; readonly metadataFields: readonly SchemaField[] }>;
}

/** Bumped after a schema or default-metadata change; see VersionedCache. */
export const INGEST_CONFIG_VERSION_KEY = 'ingest-config:version';
const TTL_MS = 60_000;
const MAX_APPS = 10_000;

/**
 * Each app's ingest configuration, cached per process so the ingest hot path does not query the
 * metadata database (ingest must never hit PostgreSQL on the hot path). A change through the API is
 * seen by every process on its next request, because the changing service calls `changed()` before it
 * answers.
 */
export class IngestConfigCache {
  readonly #metadata: Pick<MetadataRepositories, 'apps' | 'schemas'>;
  readonly #cache: VersionedCache<IngestConfig>;

  constructor(deps: { metadata: Pick<MetadataRepositories, 'apps' | 'schemas'>; state: StateStore; versions?: CacheVersions | undefined; logger: Logger }) {
    this.#metadata = deps.metadata;
    this.#cache = new VersionedCache({ state: deps.state, versions: deps.versions, versionKey: INGEST_CONFIG_VERSION_KEY, ttlMs: TTL_MS, maxEntries: MAX_APPS, logger: deps.logger });
  }

  /**
   * The app's configuration, or null when the app does not exist (deleted since its key was checked);
   * at once when cached under a version the process trusts.
   */
  get(appId: string): Awaitable<IngestConfig | null> {
    return this.#cache.get(appId, () => this.#load(appId));
  }

  /** Call after committing a change to an app's schemas or default metadata. */
  changed(): Promise<void> {
    return this.#cache.invalidate();
  }

  async #load(appId: string): Promise<IngestConfig | null> {
    const app = await this.#metadata.apps.findById(appId);
    if (!app) return null;
    const schemas = await this.#metadata.schemas.listAll(appId);
    return {
      defaultMetadata: { ...app.defaultMetadata },
      schemas: new Map(schemas.map((s) => [s.eventName, { fields: s.fields as readonly SchemaField[], metadataFields: s.metadataFields as readonly SchemaField[] }])),
    };
  }
}
