import { randomUUID } from 'node:crypto';
import type { EventSchemaRecord, MetadataStore, StoredSchemaField } from '../ports/metadata.js';
import { EVENT_NAME_PATTERN, completeFields, type SchemaField, type SchemaFieldDraft } from '../domain/event-schema.js';
import { deleteById, notFound, requireApp, requireById } from './app-lookup.js';
import { conflictOnDuplicate } from './unique-violation.js';
import type { IngestConfigCache } from './ingest-config.js';

export interface EventSchemaView {
  readonly id: string;
  readonly appId: string;
  readonly eventName: string;
  readonly description: string;
  readonly fields: SchemaField[];
  readonly metadataFields: SchemaField[];
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface EventSchemasDeps {
  readonly metadata: MetadataStore;
  /** Told about every change, so ingest checks events against the new schema from the next request. */
  readonly ingestConfig: Pick<IngestConfigCache, 'changed'>;
}

export interface NewEventSchemaInput {
  readonly eventName: string;
  readonly description?: string | undefined;
  readonly fields: readonly SchemaFieldDraft[];
  readonly metadataFields?: readonly SchemaFieldDraft[] | undefined;
}

export interface EventSchemaChangesInput {
  readonly description?: string | undefined;
  readonly fields?: readonly SchemaFieldDraft[] | undefined;
  readonly metadataFields?: readonly SchemaFieldDraft[] | undefined;
}

/**
 * Event schemas of an app. Requests reach these methods already validated (the route's request
 * schemas run the domain's field rules), so here it is lookups inside the caller's account,
 * server-assigned field ids, and the unique event name.
 */
export class EventSchemasService {
  constructor(private readonly deps: EventSchemasDeps) {}

  async list(accountId: string, appIdOrSlug: string, page: { limit: number; offset: number }): Promise<EventSchemaView[]> {
    const app = await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug);
    return (await this.deps.metadata.schemas.list(app.id, page)).map(toView);
  }

  /** A second schema for an event name the app already has is a 409, decided by the unique index. */
  async create(accountId: string, appIdOrSlug: string, input: NewEventSchemaInput): Promise<EventSchemaView> {
    const app = await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug);
    const schema = await conflictOnDuplicate(
      () =>
        this.deps.metadata.schemas.create({
          appId: app.id,
          eventName: input.eventName,
          description: input.description ?? '',
          fields: toStored(input.fields),
          metadataFields: toStored(input.metadataFields ?? []),
        }),
      `this app already has a schema for event name "${input.eventName}"`,
    );
    await this.deps.ingestConfig.changed();
    return toView(schema);
  }

  async getByName(accountId: string, appIdOrSlug: string, eventName: string): Promise<EventSchemaView> {
    const app = await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug);
    // A name no schema can have is not looked up (a NUL byte would make PostgreSQL fail the query).
    const schema = EVENT_NAME_PATTERN.test(eventName) ? await this.deps.metadata.schemas.findByName(app.id, eventName) : null;
    if (!schema) throw notFound();
    return toView(schema);
  }

  /** `fields` and `metadataFields`, when given, replace the old lists entirely. */
  async update(accountId: string, appIdOrSlug: string, schemaId: string, changes: EventSchemaChangesInput): Promise<EventSchemaView> {
    const { apps, schemas } = this.deps.metadata;
    const app = await requireApp(apps, accountId, appIdOrSlug);
    const schema = await requireById(schemaId, (id) => schemas.findById(app.id, id));
    // Field lists given always count as a change (fields without an id get new ones); an unchanged
    // description alone is not written, so `updatedAt` means "last changed".
    const descriptionChanged = changes.description !== undefined && changes.description !== schema.description;
    if (!descriptionChanged && changes.fields === undefined && changes.metadataFields === undefined) return toView(schema);
    const updated = await schemas.update(schema.id, {
      description: changes.description,
      fields: changes.fields && toStored(changes.fields),
      metadataFields: changes.metadataFields && toStored(changes.metadataFields),
    });
    if (!updated) throw notFound();
    await this.deps.ingestConfig.changed();
    return toView(updated);
  }

  async delete(accountId: string, appIdOrSlug: string, schemaId: string): Promise<void> {
    const app = await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug);
    await deleteById(schemaId, (id) => this.deps.metadata.schemas.delete(app.id, id));
    await this.deps.ingestConfig.changed();
  }
}

/** Fields without an id get a UUID, so a client can refer to a field across later replacements. */
function toStored(drafts: readonly SchemaFieldDraft[]): StoredSchemaField[] {
  return completeFields(drafts, randomUUID).map(({ enumValues, ...field }) => ({ ...field, ...(enumValues ? { enumValues: [...enumValues] } : {}) }));
}

function fromStored(stored: readonly StoredSchemaField[]): SchemaField[] {
  return completeFields(stored, () => {
    throw new Error('a stored schema field has no id');
  });
}

function toView(schema: EventSchemaRecord): EventSchemaView {
  return {
    id: schema.id,
    appId: schema.appId,
    eventName: schema.eventName,
    description: schema.description,
    fields: fromStored(schema.fields),
    metadataFields: fromStored(schema.metadataFields),
    createdAt: schema.createdAt.toISOString(),
    updatedAt: schema.updatedAt.toISOString(),
  };
}
