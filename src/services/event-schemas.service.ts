import { randomUUID } from 'node:crypto';
import type { EventSchema, StoredSchemaField } from '../adapters/metadata/entities/event-schema.entity.js';
import type { MetadataStore } from '../adapters/metadata/metadata-store.js';
import {
  createEventSchema as insertEventSchema,
  deleteEventSchemaById,
  findEventSchemaById,
  findEventSchemaByName,
  listEventSchemas as listSchemaRows,
} from '../adapters/metadata/repositories/event-schema-repository.js';
import { EVENT_NAME_PATTERN, completeFields, type SchemaField, type SchemaFieldDraft } from '../domain/event-schema.js';
import { isUuid } from '../domain/uuid.js';
import { notFound, requireApp } from './app-lookup.js';
import { conflictOnDuplicate } from './unique-violation.js';
import type { IngestConfigCache } from './ingest-config.js';

/**
 * Event schemas of an app. Requests reach these functions already validated (the route's request
 * schemas run the domain's field rules), so here it is lookups inside the caller's account,
 * server-assigned field ids, and the unique event name.
 */
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
  readonly ingestConfig: IngestConfigCache;
}

export interface NewEventSchemaInput {
  readonly eventName: string;
  readonly description?: string | undefined;
  readonly fields: readonly SchemaFieldDraft[];
  readonly metadataFields?: readonly SchemaFieldDraft[] | undefined;
}

export interface EventSchemaChanges {
  readonly description?: string | undefined;
  readonly fields?: readonly SchemaFieldDraft[] | undefined;
  readonly metadataFields?: readonly SchemaFieldDraft[] | undefined;
}

export async function listEventSchemas(deps: EventSchemasDeps, accountId: string, appIdOrSlug: string, page: { limit: number; offset: number }): Promise<EventSchemaView[]> {
  const em = deps.metadata.em();
  const app = await requireApp(em, accountId, appIdOrSlug);
  return (await listSchemaRows(em, app.id, page)).map(toView);
}

/** A second schema for an event name the app already has is a 409, decided by the unique index. */
export async function createEventSchema(deps: EventSchemasDeps, accountId: string, appIdOrSlug: string, input: NewEventSchemaInput): Promise<EventSchemaView> {
  const em = deps.metadata.em();
  const app = await requireApp(em, accountId, appIdOrSlug);
  const schema = await conflictOnDuplicate(
    () =>
      insertEventSchema(em, {
        appId: app.id,
        eventName: input.eventName,
        description: input.description ?? '',
        fields: toStored(input.fields),
        metadataFields: toStored(input.metadataFields ?? []),
      }),
    `this app already has a schema for event name "${input.eventName}"`,
  );
  await deps.ingestConfig.changed();
  return toView(schema);
}

export async function getEventSchemaByName(deps: EventSchemasDeps, accountId: string, appIdOrSlug: string, eventName: string): Promise<EventSchemaView> {
  const em = deps.metadata.em();
  const app = await requireApp(em, accountId, appIdOrSlug);
  // A name no schema can have is not looked up (a NUL byte would make PostgreSQL fail the query).
  const schema = EVENT_NAME_PATTERN.test(eventName) ? await findEventSchemaByName(em, app.id, eventName) : null;
  if (!schema) throw notFound();
  return toView(schema);
}

/** `fields` and `metadataFields`, when given, replace the old lists entirely. */
export async function updateEventSchema(
  deps: EventSchemasDeps,
  accountId: string,
  appIdOrSlug: string,
  schemaId: string,
  changes: EventSchemaChanges,
): Promise<EventSchemaView> {
  const em = deps.metadata.em();
  const app = await requireApp(em, accountId, appIdOrSlug);
  const schema = isUuid(schemaId) ? await findEventSchemaById(em, app.id, schemaId.toLowerCase()) : null;
  if (!schema) throw notFound();
  // Field lists given always count as a change (fields without an id get new ones); an unchanged
  // description alone is not written, so `updatedAt` means "last changed".
  const descriptionChanged = changes.description !== undefined && changes.description !== schema.description;
  if (!descriptionChanged && changes.fields === undefined && changes.metadataFields === undefined) return toView(schema);
  if (changes.description !== undefined) schema.description = changes.description;
  if (changes.fields !== undefined) schema.fields = toStored(changes.fields);
  if (changes.metadataFields !== undefined) schema.metadataFields = toStored(changes.metadataFields);
  await em.flush();
  await deps.ingestConfig.changed();
  return toView(schema);
}

export async function deleteEventSchema(deps: EventSchemasDeps, accountId: string, appIdOrSlug: string, schemaId: string): Promise<void> {
  const em = deps.metadata.em();
  const app = await requireApp(em, accountId, appIdOrSlug);
  const deleted = isUuid(schemaId) && (await deleteEventSchemaById(em, app.id, schemaId.toLowerCase()));
  if (!deleted) throw notFound();
  await deps.ingestConfig.changed();
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

function toView(schema: EventSchema): EventSchemaView {
  return {
    id: schema.id,
    appId: schema.app.id,
    eventName: schema.eventName,
    description: schema.description,
    fields: fromStored(schema.fields),
    metadataFields: fromStored(schema.metadataFields),
    createdAt: schema.createdAt.toISOString(),
    updatedAt: schema.updatedAt.toISOString(),
  };
}
