import type { IncomingMessage } from 'node:http';
import protobuf from 'protobufjs';
import { z } from 'zod';
import { DomainError } from '../../domain/errors.js';
import type { TurnBudget } from '../../lib/turn-budget.js';
import { readBodyBytes, readJsonBody } from '../json-body.js';

/**
 * The OTLP/HTTP logs request and response (opentelemetry-proto's collector/logs/v1 with the messages
 * it uses), in the two encodings OTLP/HTTP allows: binary protobuf and the JSON mapping. Only the
 * fields the service reads are declared; protobuf skips the others (trace and span ids, flags,
 * dropped counts, schema URLs). Both encodings decode to the same plain shape, OtlpLogsRequest.
 */

/** An attribute value (AnyValue), at most one of these set. */
export interface OtlpAnyValue {
  readonly stringValue?: string;
  readonly boolValue?: boolean;
  /** int64: a decimal string (protobuf, and JSON as the mapping writes it) or a number. */
  readonly intValue?: string | number;
  readonly doubleValue?: number;
  readonly arrayValue?: { readonly values?: readonly OtlpAnyValue[] };
  readonly kvlistValue?: { readonly values?: readonly OtlpKeyValue[] };
  /** base64 in both encodings once decoded. */
  readonly bytesValue?: string;
}

export interface OtlpKeyValue {
  readonly key?: string;
  readonly value?: OtlpAnyValue;
}

export interface OtlpLogRecord {
  /** fixed64 nanoseconds since the epoch, as a decimal string (or a number in JSON). */
  readonly timeUnixNano?: string | number;
  readonly observedTimeUnixNano?: string | number;
  readonly severityNumber?: number | string;
  readonly severityText?: string;
  readonly body?: OtlpAnyValue;
  readonly attributes?: readonly OtlpKeyValue[];
  readonly eventName?: string;
}

export interface OtlpLogsRequest {
  readonly resourceLogs?: ReadonlyArray<{
    readonly resource?: { readonly attributes?: readonly OtlpKeyValue[] };
    readonly scopeLogs?: ReadonlyArray<{ readonly logRecords?: readonly OtlpLogRecord[] }>;
  }>;
}

const field = (type: string, id: number, rule?: 'repeated') => ({ type, id, ...(rule ? { rule } : {}) });

// Field numbers as opentelemetry-proto defines them.
const root = protobuf.Root.fromJSON({
  nested: {
    otlp: {
      nested: {
        AnyValue: {
          oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] } },
          fields: {
            stringValue: field('string', 1),
            boolValue: field('bool', 2),
            intValue: field('int64', 3),
            doubleValue: field('double', 4),
            arrayValue: field('ArrayValue', 5),
            kvlistValue: field('KeyValueList', 6),
            bytesValue: field('bytes', 7),
          },
        },
        ArrayValue: { fields: { values: field('AnyValue', 1, 'repeated') } },
        KeyValueList: { fields: { values: field('KeyValue', 1, 'repeated') } },
        KeyValue: { fields: { key: field('string', 1), value: field('AnyValue', 2) } },
        Resource: { fields: { attributes: field('KeyValue', 1, 'repeated') } },
        LogRecord: {
          fields: {
            timeUnixNano: field('fixed64', 1),
            severityNumber: field('int32', 2),
            severityText: field('string', 3),
            body: field('AnyValue', 5),
            attributes: field('KeyValue', 6, 'repeated'),
            observedTimeUnixNano: field('fixed64', 11),
            eventName: field('string', 12),
          },
        },
        ScopeLogs: { fields: { logRecords: field('LogRecord', 2, 'repeated') } },
        ResourceLogs: { fields: { resource: field('Resource', 1), scopeLogs: field('ScopeLogs', 2, 'repeated') } },
        ExportLogsServiceRequest: { fields: { resourceLogs: field('ResourceLogs', 1, 'repeated') } },
        ExportLogsPartialSuccess: { fields: { rejectedLogRecords: field('int64', 1), errorMessage: field('string', 2) } },
        ExportLogsServiceResponse: { fields: { partialSuccess: field('ExportLogsPartialSuccess', 1) } },
      },
    },
  },
});
const REQUEST = root.lookupType('otlp.ExportLogsServiceRequest');
const RESPONSE = root.lookupType('otlp.ExportLogsServiceResponse');

/** The two encodings, by media type. */
export type OtlpEncoding = 'protobuf' | 'json';

export function otlpEncodingOf(contentType: string | undefined): OtlpEncoding | undefined {
  const type = contentType?.split(';', 1)[0]!.trim().toLowerCase();
  if (type === 'application/x-protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return undefined;
}

/** A binary ExportLogsServiceRequest; anything protobuf cannot read as one is a 400. */
export function decodeProtobufLogsRequest(bytes: Buffer): OtlpLogsRequest {
  try {
    const decoded: OtlpLogsRequest = REQUEST.toObject(REQUEST.decode(bytes), { longs: String, bytes: String, defaults: false, oneofs: false });
    return decoded;
  } catch (err) {
    throw new DomainError('validation_failed', `Body is not an OTLP ExportLogsServiceRequest: ${err instanceof Error ? err.message : String(err)}`, {
      details: [{ path: 'body', message: 'must be an OTLP/HTTP logs request (opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest)' }],
    });
  }
}

/** The answer, in the request's encoding: an empty message when every record was accepted. */
export function encodeLogsResponse(encoding: OtlpEncoding, rejected: { readonly count: number; readonly message: string }): { body: Buffer | object; contentType: string } {
  const partialSuccess = rejected.count > 0 ? { rejectedLogRecords: rejected.count, errorMessage: rejected.message } : undefined;
  if (encoding === 'json') {
    // The JSON mapping writes int64 as a decimal string.
    return { body: partialSuccess ? { partialSuccess: { ...partialSuccess, rejectedLogRecords: String(rejected.count) } } : {}, contentType: 'application/json' };
  }
  const message = RESPONSE.fromObject(partialSuccess ? { partialSuccess } : {});
  return { body: Buffer.from(RESPONSE.encode(message).finish()), contentType: 'application/x-protobuf' };
}

const anyValue: z.ZodType<OtlpAnyValue> = z.lazy(() =>
  z.looseObject({
    stringValue: z.string().optional(),
    boolValue: z.boolean().optional(),
    intValue: z.union([z.string().regex(/^-?\d{1,20}$/, 'must be an integer'), z.number().int()]).optional(),
    doubleValue: z.number().optional(),
    arrayValue: z.looseObject({ values: z.array(anyValue).optional() }).optional(),
    kvlistValue: z.looseObject({ values: z.array(keyValue).optional() }).optional(),
    bytesValue: z.string().optional(),
  }),
);
const keyValue: z.ZodType<OtlpKeyValue> = z.lazy(() => z.looseObject({ key: z.string().optional(), value: anyValue.optional() }));
const nanos = z.union([z.string().regex(/^\d{1,20}$/, 'must be nanoseconds since the epoch'), z.number().int().nonnegative()]);

/**
 * An ExportLogsServiceRequest as the JSON mapping writes it (field names in lowerCamelCase, int64 as
 * strings or numbers), and as binary requests decode: what the route validates either way. Fields
 * the service does not read pass through unchecked.
 */
export const otlpLogsRequestSchema = z
  .looseObject({
    resourceLogs: z
      .array(
        z.looseObject({
          resource: z.looseObject({ attributes: z.array(keyValue).optional() }).optional(),
          scopeLogs: z
            .array(
              z.looseObject({
                logRecords: z
                  .array(
                    z.looseObject({
                      timeUnixNano: nanos.optional(),
                      observedTimeUnixNano: nanos.optional(),
                      severityNumber: z.number().int().min(0).max(24).optional(),
                      severityText: z.string().optional(),
                      body: anyValue.optional(),
                      attributes: z.array(keyValue).optional(),
                      eventName: z.string().optional(),
                    }),
                  )
                  .optional(),
              }),
            )
            .optional(),
        }),
      )
      .optional(),
  })
  .meta({ id: 'OtlpLogsRequest', description: 'opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest (OTLP/HTTP, JSON mapping); the fields read are listed' });

export const otlpLogsResponseSchema = z
  .object({
    partialSuccess: z
      .object({
        rejectedLogRecords: z.string().describe('How many records were not accepted (int64, as a decimal string)'),
        errorMessage: z.string().describe('Why, for the first of them'),
      })
      .optional()
      .describe('Present when some records were not accepted'),
  })
  .meta({ id: 'OtlpLogsResponse', description: 'opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse' });

/**
 * Reads an OTLP/HTTP logs request: binary protobuf or JSON, compressed or not (gzip, deflate, br),
 * at most 1 MiB decoded. Another media type is 415; a body that is not a logs request is 400.
 */
export async function readOtlpLogsBody(req: IncomingMessage, turns?: TurnBudget): Promise<unknown> {
  const encoding = otlpEncodingOf(req.headers['content-type']);
  if (encoding === 'json') return (await readJsonBody(req, { turns })) ?? {};
  if (encoding === 'protobuf') return decodeProtobufLogsRequest(await readBodyBytes(req, { turns }));
  throw new DomainError('unsupported_media_type', 'OTLP/HTTP bodies are application/x-protobuf or application/json');
}
