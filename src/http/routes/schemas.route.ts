import { z } from 'zod';
import {
  EVENT_NAME_PATTERN,
  FIELD_ID_PATTERN,
  FIELD_NAME_PATTERN,
  FIELD_TYPES,
  MAX_DESCRIPTION_LENGTH,
  MAX_ENUM_VALUE_LENGTH,
  MAX_ENUM_VALUES,
  MAX_FIELDS,
  fieldListProblems,
} from '../../domain/event-schema.js';
import { UNSTORABLE_TEXT_MESSAGE, isStorableText } from '../../domain/text.js';
import { METADATA_KEY_PATTERN, METADATA_KEY_RULE } from '../../domain/default-metadata.js';
import { defineRoute, idOnlyView, paginationQuery, type AnyRoute } from '../route.js';
import { appIdParam, appParams } from './app-params.js';
import type { ApiDeps } from './api-deps.js';

/**
 * A field definition as a client sends it. Only the name differs between the two lists: a data field
 * is a key rules can reach with a dotted path, so it has no `.`; metadata is flat, and its keys may be
 * dotted (`service.name`, as OpenTelemetry resources name them), as default metadata's may.
 */
function fieldInputSchema(name: z.ZodString, id: string) {
  return z
    .strictObject({
      id: z
        .string({ error: 'must be a string' })
        .regex(FIELD_ID_PATTERN, 'must be 1–100 letters, digits or . _ : -')
        .optional()
        .describe('Field identifier; assigned by the server (a UUID) when omitted'),
      name,
      type: z.enum(FIELD_TYPES, { error: `must be one of: ${FIELD_TYPES.join(', ')}` }),
      required: z.boolean({ error: 'must be a boolean' }).optional().describe('Default false'),
      enumValues: z
        .array(
          z
            .string({ error: 'must be a string' })
            .min(1, 'must not be empty')
            .max(MAX_ENUM_VALUE_LENGTH, `must be at most ${MAX_ENUM_VALUE_LENGTH} characters`)
            .refine(isStorableText, UNSTORABLE_TEXT_MESSAGE),
          { error: 'must be an array of strings' },
        )
        .max(MAX_ENUM_VALUES, `must list at most ${MAX_ENUM_VALUES} values`)
        .optional()
        .describe('Allowed values: required (non-empty) for type `enum`, not allowed for other types'),
    })
    .meta({ id });
}

const dataFieldInput = fieldInputSchema(
  z
    .string({ error: 'must be a non-empty string' })
    .regex(FIELD_NAME_PATTERN, 'must be 1–100 letters, digits, _ or -, not starting with -')
    .describe('Key of the value in the event\'s `data`; unique within the list. No `.` (rule conditions use dotted paths) and no `$`.'),
  'SchemaFieldInput',
);

const metadataFieldInput = fieldInputSchema(
  z
    .string({ error: 'must be a non-empty string' })
    .regex(METADATA_KEY_PATTERN, `must be ${METADATA_KEY_RULE}`)
    .describe('Key of the value in the event\'s `metadata`; unique within the list. Metadata is flat, so a key may hold dots (`service.name`).'),
  'SchemaMetadataFieldInput',
);

/** One list of fields, with the domain's rules across its items (enum values, unique names and ids). */
function fieldList(item: typeof dataFieldInput, minimum: number) {
  return z
    .array(item, { error: 'must be an array of fields' })
    .min(minimum, `must contain at least ${minimum} field`)
    .max(MAX_FIELDS, `must contain at most ${MAX_FIELDS} fields`)
    .superRefine((fields, ctx) => {
      for (const problem of fieldListProblems(fields)) {
        ctx.addIssue({ code: 'custom', message: problem.message, path: problem.path.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part)) });
      }
    });
}

const descriptionSchema = z
  .string({ error: 'must be a string' })
  .max(MAX_DESCRIPTION_LENGTH, `must be at most ${MAX_DESCRIPTION_LENGTH} characters`)
  .refine(isStorableText, UNSTORABLE_TEXT_MESSAGE)
  .describe('Human-readable description');

/**
 * A schema keeps at least one data field after an update too, the invariant create establishes;
 * `metadataFields` may be emptied.
 */
const createBody = z.strictObject({
  eventName: z
    .string({ error: 'must be a non-empty string' })
    .regex(EVENT_NAME_PATTERN, 'must be 1–200 characters of letters, digits, . _ : -')
    .describe('Event name, unique within the app: 1–200 characters of `[A-Za-z0-9._:-]`'),
  description: descriptionSchema.optional(),
  fields: fieldList(dataFieldInput, 1).describe('Definitions of the event data fields; at least one'),
  metadataFields: fieldList(metadataFieldInput, 0).optional().describe('Definitions of metadata fields'),
});

const updateBody = z.strictObject(
  {
    description: descriptionSchema.optional(),
    fields: fieldList(dataFieldInput, 1).optional().describe('Replaces the existing fields entirely; at least one'),
    metadataFields: fieldList(metadataFieldInput, 0).optional().describe('Replaces the existing metadata fields entirely'),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys' && issue.keys.includes('eventName')
        ? 'eventName cannot be changed; create a schema for the new name instead'
        : undefined,
  },
);

const schemaFieldSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(FIELD_TYPES),
    required: z.boolean(),
    enumValues: z.array(z.string()).optional().describe('Present exactly for type `enum`'),
  })
  .meta({ id: 'SchemaField' });

export const eventSchemaSchema = z
  .object({
    id: z.uuid(),
    appId: z.uuid(),
    eventName: z.string(),
    description: z.string(),
    fields: z.array(schemaFieldSchema),
    metadataFields: z.array(schemaFieldSchema),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'EventSchema' });

const schemaParams = z.object({ appId: appIdParam, schemaId: z.string().describe('The schema id') });
const eventNameParams = z.object({ appId: appIdParam, eventName: z.string().describe('The event name; dotted names such as `order.created` work as they are') });

/** Event schemas of an app: list, create, read by event name, update, delete. */
export function schemaRoutes(deps: ApiDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/apps/{appId}/schemas',
      operationId: 'listEventSchemas',
      summary: "List the app's event schemas, oldest first",
      description: 'The schemas registered for the app\'s event names, in pages of `limit` from `offset`, oldest first. Events whose name has a schema are validated against it at ingest.',
      tags: ['schemas'],
      auth: 'client',
      params: appParams,
      query: paginationQuery,
      responses: { 200: { description: 'A page of event schemas', schema: z.array(eventSchemaSchema) } },
      handler: async ({ params, query, principal }) => ({ status: 200, body: await deps.services.schemas.list(principal.accountId, params.appId, query) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/apps/{appId}/schemas',
      operationId: 'createEventSchema',
      summary: 'Register the schema of an event name',
      description: 'Registers the fields that events of one name carry. From then on, ingest refuses (400, with `details`) an event of that name that does not match the schema. One schema per event name: a second one for the same name is a conflict (409).',
      tags: ['schemas'],
      auth: 'client',
      params: appParams,
      body: createBody,
      responses: { 201: { description: 'Schema created', schema: eventSchemaSchema } },
      writeOnlyView: idOnlyView,
      handler: async ({ params, body, principal }) => ({ status: 201, body: await deps.services.schemas.create(principal.accountId, params.appId, body) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/apps/{appId}/schemas/by-event-name/{eventName}',
      operationId: 'getEventSchemaByEventName',
      summary: 'Read the schema of one event name',
      description: 'The schema registered for one event name of the app; 404 when that name has none.',
      tags: ['schemas'],
      auth: 'client',
      params: eventNameParams,
      responses: { 200: { description: 'The event schema', schema: eventSchemaSchema } },
      handler: async ({ params, principal }) => ({ status: 200, body: await deps.services.schemas.getByName(principal.accountId, params.appId, params.eventName) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/apps/{appId}/schemas/{schemaId}',
      operationId: 'updateEventSchema',
      summary: 'Update a schema; field lists given replace the old ones entirely',
      description: '`eventName` cannot be changed.',
      tags: ['schemas'],
      auth: 'client',
      params: schemaParams,
      body: updateBody,
      responses: { 200: { description: 'The updated event schema', schema: eventSchemaSchema } },
      writeOnlyView: idOnlyView,
      handler: async ({ params, body, principal }) => ({ status: 200, body: await deps.services.schemas.update(principal.accountId, params.appId, params.schemaId, body) }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/apps/{appId}/schemas/{schemaId}',
      operationId: 'deleteEventSchema',
      summary: 'Delete a schema',
      description: 'Deletes the schema: events of its name are accepted without field checks from then on. Events already stored are not changed.',
      tags: ['schemas'],
      auth: 'client',
      params: schemaParams,
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ params, principal }) => {
        await deps.services.schemas.delete(principal.accountId, params.appId, params.schemaId);
        return { status: 204 };
      },
    }),
  ];
}
