import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { DomainError } from '../../domain/errors.js';
import type { ExchangeNotes } from '../../observability/http-metrics.js';
import type { IngestItem, IngestRequest, IngestResult } from '../../services/ingest.service.js';
import { defineRoute, type AnyRoute, type RouteResult } from '../route.js';
import { appParams } from './app-params.js';
import { ingestBatchSchema, ingestBodySchema, ingestEventSchema, wellFormedIngestBody, type IngestBody, type IngestEvent } from './ingest-body.js';
import type { ApiDeps } from './api-deps.js';

const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export const ingestResponseSchema = z
  .object({
    accepted: z.number().int().describe('Count of events taken'),
    events: z.array(z.object({ id: z.string().describe('Event id (UUIDv7), in request order') })),
  })
  .meta({ id: 'IngestResponse' });


export function toIngestItems(body: IngestBody): { items: IngestItem[]; single: boolean } {
  const list = Array.isArray(body) ? body : [body];
  return { single: !Array.isArray(body), items: list.map(toIngestItem) };
}

/** One validated event of an ingest body as the ingest service takes it. */
export function toIngestItem(e: IngestEvent): IngestItem {
  return {
    event: e.event,
    data: e.data,
    level: e.level,
    customerId: e.customer_id,
    timestamp: e.timestamp === undefined ? undefined : new Date(e.timestamp),
    metadata: e.metadata,
  };
}

/** A digest of what the client asked, to tell an idempotent retry from a reused key. */
export function bodyDigest(body: unknown): string {
  return createHash('sha256').update(JSON.stringify(body)).digest('base64url');
}

/**
 * The request's idempotency claim, or undefined without an Idempotency-Key. The body digest (a
 * stringify and SHA-256 of up to 1 MiB) is computed only then: it is pure cost on every other request.
 */
export function idempotencyOf(headers: IncomingHttpHeaders, rawBody: unknown): { key: string; bodyDigest: string } | undefined {
  const key = idempotencyKeyOf(headers['idempotency-key']);
  return key === undefined ? undefined : { key, bodyDigest: bodyDigest(rawBody) };
}

export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header[0] : header;
  if (!value || value.length > MAX_IDEMPOTENCY_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(value)) {
    throw new DomainError('validation_failed', `Idempotency-Key: must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters`, {
      details: [{ path: 'Idempotency-Key', message: `must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters` }],
    });
  }
  return value;
}

/** 202 with the ingest response; a replayed idempotent request says so in a header. */
function accepted({ response, replayed }: IngestResult): RouteResult {
  return { status: 202, body: response, headers: replayed ? { 'Idempotent-Replayed': 'true' } : {} };
}

export function ingestRoutes(deps: ApiDeps): AnyRoute[] {
  /**
   * The service's only `validation_failed` is a violation of the app's registered schemas (the form
   * of the body was checked before it ran): the metrics count those events as `schema`, not `validation`.
   */
  const ingest = (request: IngestRequest, notes: ExchangeNotes): Promise<RouteResult> =>
    // Chained rather than awaited: one promise less per request (lib/awaitable.ts).
    deps.services.ingest.ingest(request).then(accepted, (err: unknown) => {
      if (err instanceof DomainError && err.code === 'validation_failed') notes.eventsRejection = 'schema';
      throw err;
    });
  return [
    defineRoute({
      method: 'post',
      path: '/v1/ingest',
      operationId: 'ingestEvents',
      summary: 'Ingest one event or a batch of up to 100 into the app that owns the API key',
      description:
        '202 means durable: acknowledged by Kafka (all in-sync replicas) in distributed mode, written to the store in embedded mode. ' +
        'With an `Idempotency-Key` header, a repeat within 24 h returns the first response and stores nothing new.',
      tags: ['ingest'],
      auth: 'api_key',
      body: ingestBodySchema,
      // Java and other generators cannot make code of an object-or-array union: the document shows
      // the batch form, and says that a single object is accepted too.
      documentedBody: ingestBatchSchema,
      fastBody: wellFormedIngestBody,
      responses: { 202: { description: 'Accepted and durable', schema: ingestResponseSchema } },
      ingest: true,
      // Not async: it hands on the promise of `ingest`, where an async function would wrap it in one more.
      handler: ({ body, principal, headers, rawBody, notes }) => {
        const { items, single } = toIngestItems(body);
        return ingest({ appId: principal.appId, items, single, idempotency: idempotencyOf(headers, rawBody) }, notes);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/apps/{appId}/events/test',
      operationId: 'sendTestEvent',
      summary: 'Send one event to an app with a client secret (for the dashboard, which never holds the API key)',
      description: 'The event runs through the whole pipeline like any ingested event: stored, then matched against the rules.',
      tags: ['ingest'],
      auth: 'client',
      params: appParams,
      body: ingestEventSchema,
      responses: { 202: { description: 'Accepted and durable', schema: ingestResponseSchema } },
      // The ids of the events it made, nothing read.
      writeOnlyView: ingestResponseSchema,
      ingest: true,
      handler: async ({ params, body, principal, headers, rawBody, notes }) => {
        const app = await deps.services.apps.get(principal.accountId, params.appId);
        const { items } = toIngestItems(body);
        return ingest({ appId: app.id, items, single: true, idempotency: idempotencyOf(headers, rawBody) }, notes);
      },
    }),
  ];
}
