import { defineRoute, type AnyRoute } from '../route.js';
import { logRecordsAsEvents } from '../otlp/logs-events.js';
import { encodeLogsResponse, otlpEncodingOf, otlpLogsRequestSchema, otlpLogsResponseSchema, readOtlpLogsBody } from '../otlp/logs-wire.js';
import type { ApiDeps } from './api-deps.js';

/**
 * OpenTelemetry logs over OTLP/HTTP: an SDK or a collector exports to `${base}/v1/otlp` with the app's
 * key in `x-api-key` (OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_EXPORTER_OTLP_HEADERS), and each log record
 * becomes an event of the key's app (otlp/logs-events.ts says how), checked against the app's schemas,
 * given its default metadata, matched by its rules and made durable as any ingested event.
 */
export function otlpRoutes(deps: ApiDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/otlp/v1/logs',
      operationId: 'exportOtlpLogs',
      summary: 'OpenTelemetry logs (OTLP/HTTP), each record an event of the app that owns the API key',
      description:
        'Takes an ExportLogsServiceRequest as `application/x-protobuf` or `application/json`, compressed or not, and answers in the same encoding. ' +
        "Each record becomes an event: `event` is the record's event name, else its `event.name` attribute, else `log`; `level` comes from the severity number " +
        '(1–12 `info`, 13–16 `warning`, 17–24 `error`, unset `info`); `customer_id` from the `enduser.id` or `customer.id` attribute; `timestamp` from the ' +
        "record's time, else its observed time, else now; `data` is the record's attributes plus `body` when set; `metadata` the resource's string, number and boolean attributes. " +
        'A record that is not a valid event (or breaks the app schema of its name) is counted in `partialSuccess.rejectedLogRecords`, and the others are accepted: 200 means the accepted ones are durable. ' +
        'A body that is not a logs request is 400.',
      tags: ['ingest'],
      auth: 'api_key',
      body: otlpLogsRequestSchema,
      bodyReader: { read: readOtlpLogsBody, mediaTypes: ['application/x-protobuf', 'application/json'] },
      responses: { 200: { description: 'The accepted records are durable; `partialSuccess` counts the others', schema: otlpLogsResponseSchema } },
      ingest: true,
      handler: async ({ body, principal, headers, notes }) => {
        const mapped = logRecordsAsEvents(body);
        const stored = mapped.items.length > 0 ? await deps.services.ingest.ingestEach(principal.appId, mapped.items) : undefined;
        const rejected = [...mapped.rejected, ...(stored?.rejected ?? [])];
        notes.partial = { accepted: stored?.response.accepted ?? 0, rejected: rejected.length };
        const reply = encodeLogsResponse(otlpEncodingOf(headers['content-type']) ?? 'json', {
          count: rejected.length,
          message: rejected.length === 0 ? '' : `${rejected.length} of ${mapped.total} log records were not accepted; the first: ${rejected[0]!.message}`,
        });
        return { status: 200, body: reply.body, headers: { 'Content-Type': reply.contentType } };
      },
    }),
  ];
}
