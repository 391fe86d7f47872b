/**
 * Generated from GET /v1/openapi.json by `npm run dashboard:types` (openapi-typescript); do not edit.
 * test/unit/dashboard-types.test.ts fails when this file is behind the route declarations.
 */
export interface paths {
    readonly "/v1/client-secrets": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /**
         * List the account's client secrets
         * @description Revoked secrets included (with `revokedAt`), oldest first.
         */
        readonly get: operations["listClientSecrets"];
        readonly put?: never;
        /**
         * Create a client secret
         * @description The value is returned once, in `clientSecret`; afterwards only its `hint` is visible.
         */
        readonly post: operations["createClientSecret"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/client-secrets/{id}": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        readonly post?: never;
        /**
         * Revoke a client secret
         * @description The secret fails with 401 from the moment of the response, on every API process. Revoking an already revoked secret also gives 204 (DELETE is idempotent). 409 when it is the last active secret of the account. An id that is unknown, malformed or of another account is 404.
         */
        readonly delete: operations["revokeClientSecret"];
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/apps": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /**
         * List the account's apps, oldest first
         * @description Every app of the account the client secret belongs to, in pages of `limit` from `offset`, oldest first. API keys are never listed: each app shows only the first characters of its key.
         */
        readonly get: operations["listApps"];
        readonly put?: never;
        /**
         * Create an app
         * @description The app gets a slug (from its name unless given) and an API key (`svc_live_…`) for `POST /v1/ingest`. The full key is in this response only: the service keeps a digest of it.
         */
        readonly post: operations["createApp"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /**
         * Read one app
         * @description One app of the account, named by its id or its slug. Its API key shows only as its first characters.
         */
        readonly get: operations["getApp"];
        readonly put?: never;
        readonly post?: never;
        /**
         * Delete an app with its key, schemas, rules, destinations and events
         * @description Deletes the app and everything that belongs to it: its API key (refused with 401 from the answer on), schemas, notification rules, destinations and stored events. Cannot be undone.
         */
        readonly delete: operations["deleteApp"];
        readonly options?: never;
        readonly head?: never;
        /**
         * Rename an app or change its slug
         * @description Renaming keeps the slug; only an explicit `slug` changes it.
         */
        readonly patch: operations["updateApp"];
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/keys/rotate": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /**
         * Rotate the app's API key
         * @description A new key becomes the only active key and is returned once; the old key fails with 401 from this response on, on every API process.
         */
        readonly post: operations["rotateAppKey"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/rotate-key": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /**
         * Rotate the app's API key (the same operation at a second path, kept for clients that use it)
         * @description A new key becomes the only active key and is returned once; the old key fails with 401 from this response on, on every API process.
         */
        readonly post: operations["rotateAppKeyAlternatePath"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/schemas": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /**
         * List the app's event schemas, oldest first
         * @description The schemas registered for the app's event names, in pages of `limit` from `offset`, oldest first. Events whose name has a schema are validated against it at ingest.
         */
        readonly get: operations["listEventSchemas"];
        readonly put?: never;
        /**
         * Register the schema of an event name
         * @description Registers the fields that events of one name carry. From then on, ingest refuses (400, with `details`) an event of that name that does not match the schema. One schema per event name: a second one for the same name is a conflict (409).
         */
        readonly post: operations["createEventSchema"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/schemas/by-event-name/{eventName}": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /**
         * Read the schema of one event name
         * @description The schema registered for one event name of the app; 404 when that name has none.
         */
        readonly get: operations["getEventSchemaByEventName"];
        readonly put?: never;
        readonly post?: never;
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/schemas/{schemaId}": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        readonly post?: never;
        /**
         * Delete a schema
         * @description Deletes the schema: events of its name are accepted without field checks from then on. Events already stored are not changed.
         */
        readonly delete: operations["deleteEventSchema"];
        readonly options?: never;
        readonly head?: never;
        /**
         * Update a schema; field lists given replace the old ones entirely
         * @description `eventName` cannot be changed.
         */
        readonly patch: operations["updateEventSchema"];
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/default-metadata": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /**
         * Read the app's default metadata
         * @description The metadata merged into every event the app ingests from then on: an event's own metadata wins where both name a key. `{}` when none is set.
         */
        readonly get: operations["getDefaultMetadata"];
        /**
         * Replace the app's default metadata
         * @description The object becomes the whole default metadata (`{}` clears it): at most 50 keys; values string, number or boolean.
         */
        readonly put: operations["replaceDefaultMetadata"];
        readonly post?: never;
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/ingest": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /**
         * Ingest one event or a batch of up to 100 into the app that owns the API key
         * @description 202 means durable: acknowledged by Kafka (all in-sync replicas) in distributed mode, written to the store in embedded mode. With an `Idempotency-Key` header, a repeat within 24 h returns the first response and stores nothing new.
         */
        readonly post: operations["ingestEvents"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/events/test": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /**
         * Send one event to an app with a client secret (for the dashboard, which never holds the API key)
         * @description The event runs through the whole pipeline like any ingested event: stored, then matched against the rules.
         */
        readonly post: operations["sendTestEvent"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/otlp/v1/logs": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /**
         * OpenTelemetry logs (OTLP/HTTP), each record an event of the app that owns the API key
         * @description Takes an ExportLogsServiceRequest as `application/x-protobuf` or `application/json`, compressed or not, and answers in the same encoding. Each record becomes an event: `event` is the record's event name, else its `event.name` attribute, else `log`; `level` comes from the severity number (1–12 `info`, 13–16 `warning`, 17–24 `error`, unset `info`); `customer_id` from the `enduser.id` or `customer.id` attribute; `timestamp` from the record's time, else its observed time, else now; `data` is the record's attributes plus `body` when set; `metadata` the resource's string, number and boolean attributes. A record that is not a valid event (or breaks the app schema of its name) is counted in `partialSuccess.rejectedLogRecords`, and the others are accepted: 200 means the accepted ones are durable. A body that is not a logs request is 400.
         */
        readonly post: operations["exportOtlpLogs"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/events": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /**
         * Page through an app's events, newest first
         * @description Newest first (timestamp, then id). Pass `nextCursor` as `cursor` for the next page; a page never repeats or skips an event while new ones arrive.
         */
        readonly get: operations["listEvents"];
        readonly put?: never;
        readonly post?: never;
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/events/{eventId}": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /**
         * Read one event by its id
         * @description The event as the list shows it; 404 when the app has no event of that id (a link to an event can be shared).
         */
        readonly get: operations["getEvent"];
        readonly put?: never;
        readonly post?: never;
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/stats/events": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /**
         * Count events over time
         * @description Counts per bucket of [from, to) (default: the 24 h up to now), every bucket present (0 when empty); at most 1500 buckets. Exact: an event stored twice counts once.
         */
        readonly get: operations["countEvents"];
        readonly put?: never;
        readonly post?: never;
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/stats/top": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /**
         * The event names, customers or levels with the most events
         * @description Largest count first, then by key, over [from, to) (default: the 24 h up to now). Events without a customer id are left out of `by=customer_id`.
         */
        readonly get: operations["topEventValues"];
        readonly put?: never;
        readonly post?: never;
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/destinations": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /**
         * List the app's destinations, oldest first
         * @description The app's destinations (webhook, Slack, Discord, e-mail), in pages of `limit` from `offset`, oldest first. Webhook URLs are shown masked: they are secrets.
         */
        readonly get: operations["listDestinations"];
        readonly put?: never;
        /**
         * Add a destination: a Slack or Discord webhook, a signed webhook, or an e-mail address
         * @description A URL whose host is or resolves to a private, loopback or link-local address is refused unless the service runs with OUTBOUND_ALLOW_PRIVATE.
         */
        readonly post: operations["createDestination"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/destinations/{destinationId}": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /**
         * Read one destination
         * @description One destination of the app, its URL masked. A webhook's signing secret is shown only when the destination is created.
         */
        readonly get: operations["getDestination"];
        readonly put?: never;
        readonly post?: never;
        /**
         * Delete a destination
         * @description 409 while an action of a rule (enabled or not) uses it.
         */
        readonly delete: operations["deleteDestination"];
        readonly options?: never;
        readonly head?: never;
        /**
         * Change the label, url or email of a destination
         * @description The type cannot change. A new url or email makes the destination unverified until it is tested again.
         */
        readonly patch: operations["updateDestination"];
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/destinations/{destinationId}/test": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /**
         * Send a test alert to the destination
         * @description Success marks the destination verified. A failure is a 502 whose message says why; the destination stays unverified.
         */
        readonly post: operations["testDestination"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/notification-rules": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /**
         * List the app's notification rules, oldest first
         * @description The app's notification rules, in pages of `limit` from `offset`, oldest first, each with its trigger count and snooze.
         */
        readonly get: operations["listNotificationRules"];
        readonly put?: never;
        /**
         * Create a notification rule
         * @description Every action's destination must belong to the app; its `channel` is the destination's type.
         */
        readonly post: operations["createNotificationRule"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/notification-rules/{ruleId}": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /**
         * Read one notification rule
         * @description One rule of the app: its event name, conditions, kind (every match, threshold or absence), actions, cooldown, snooze and trigger counts.
         */
        readonly get: operations["getNotificationRule"];
        readonly put?: never;
        readonly post?: never;
        /**
         * Delete a notification rule
         * @description Its deliveries stay listed.
         */
        readonly delete: operations["deleteNotificationRule"];
        readonly options?: never;
        readonly head?: never;
        /**
         * Update a notification rule; lists given replace the old ones
         * @description Changes the fields given and leaves the others as they are. `conditions` and `actions`, when given, replace the rule's lists entirely.
         */
        readonly patch: operations["updateNotificationRule"];
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/notification-rules/{ruleId}/snooze": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /**
         * Snooze a notification rule
         * @description Until the time given (or for the minutes given, at most 30 days), the rule keeps its state and counts its triggers (`suppressedCount` too) but sends nothing. Snoozing again replaces the time.
         */
        readonly post: operations["snoozeNotificationRule"];
        /**
         * End a snooze
         * @description The rule sends again from now on; triggers made while it was snoozed stay counted in `suppressedCount`. Ending a snooze that is not running changes nothing.
         */
        readonly delete: operations["unsnoozeNotificationRule"];
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/notification-rules/preview": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /**
         * Render what each action of a rule would send for an event
         * @description For a stored event (`eventId`), a given one (`event`, as for ingest), or else the newest stored event of the rule's event name. Sends nothing and stores nothing.
         */
        readonly post: operations["previewNotificationRule"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/notification-rules/dry-run": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /**
         * Replay stored events through a rule
         * @description The stored events of the range (default the last 24 hours, at most 31 days), in timestamp order, through the rule's conditions, trigger and cooldown, with the decision code the workers use. Changes no state and sends nothing.
         */
        readonly post: operations["dryRunNotificationRule"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/deliveries": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /**
         * Page through an app's deliveries, newest first
         * @description Pass `nextCursor` as `cursor` for the next page, with the same filters.
         */
        readonly get: operations["listDeliveries"];
        readonly put?: never;
        readonly post?: never;
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/deliveries/{deliveryId}": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /**
         * Read one delivery with its attempts
         * @description One alert delivery of the app: the rule, action, destination and event it came from, its state, and every attempt with when it started, how long it took, and the receiver's answer.
         */
        readonly get: operations["getDelivery"];
        readonly put?: never;
        readonly post?: never;
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/apps/{appId}/deliveries/{deliveryId}/retry": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly get?: never;
        readonly put?: never;
        /**
         * Send a failed delivery again
         * @description The delivery becomes `pending` and is attempted again within about a second, on a fresh retry schedule. Its attempts so far stay listed, and the new ones are numbered after them. 409 unless the delivery is `failed`.
         */
        readonly post: operations["retryDelivery"];
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
    readonly "/v1/openapi.json": {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        /**
         * This API described in OpenAPI 3.1
         * @description This document: every operation, its parameters, bodies, answers and errors, as JSON. Public, no credentials needed.
         */
        readonly get: operations["getOpenApiDocument"];
        readonly put?: never;
        readonly post?: never;
        readonly delete?: never;
        readonly options?: never;
        readonly head?: never;
        readonly patch?: never;
        readonly trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description The body of every error response */
        readonly Error: {
            readonly statusCode: number;
            /** @description HTTP status text */
            readonly error: string;
            readonly message: string;
            /** Format: date-time */
            readonly timestamp: string;
            readonly path: string;
            readonly details?: readonly {
                readonly path: string;
                readonly message: string;
            }[];
        };
        /** @description A client secret as listed: never its value */
        readonly ClientSecret: {
            /** Format: uuid */
            readonly id: string;
            readonly label: string;
            readonly scopes: readonly ("read" | "write")[];
            /** @description The first 12 characters of the secret followed by an ellipsis */
            readonly hint: string;
            /** Format: date-time */
            readonly createdAt: string;
            /** @description Recorded at most once a minute per API process */
            readonly lastUsedAt: string | null;
            readonly revokedAt: string | null;
        };
        readonly AppWithApiKey: {
            readonly app: components["schemas"]["App"];
            /** @description The full API key (`svc_live_…`). Shown only in this response; store it now. */
            readonly apiKey: string;
        };
        /** @description An app: one event namespace with one active API key. The full key is never part of it. */
        readonly App: {
            /** Format: uuid */
            readonly id: string;
            readonly accountId: string;
            readonly name: string;
            readonly slug: string;
            /** @description The first 12 characters of the current API key */
            readonly apiKeyPrefix: string;
            /** @description The masked key: its prefix followed by an ellipsis */
            readonly apiKeyHint: string;
            /** Format: date-time */
            readonly createdAt: string;
            /** Format: date-time */
            readonly updatedAt: string;
        };
        readonly EventSchema: {
            /** Format: uuid */
            readonly id: string;
            /** Format: uuid */
            readonly appId: string;
            readonly eventName: string;
            readonly description: string;
            readonly fields: readonly components["schemas"]["SchemaField"][];
            readonly metadataFields: readonly components["schemas"]["SchemaField"][];
            /** Format: date-time */
            readonly createdAt: string;
            /** Format: date-time */
            readonly updatedAt: string;
        };
        readonly SchemaField: {
            readonly id: string;
            readonly name: string;
            /** @enum {string} */
            readonly type: "string" | "number" | "boolean" | "enum";
            readonly required: boolean;
            /** @description Present exactly for type `enum` */
            readonly enumValues?: readonly string[];
        };
        readonly SchemaFieldInput: {
            /** @description Field identifier; assigned by the server (a UUID) when omitted */
            readonly id?: string;
            /** @description Key of the value in the event's `data`; unique within the list. No `.` (rule conditions use dotted paths) and no `$`. */
            readonly name: string;
            /** @enum {string} */
            readonly type: "string" | "number" | "boolean" | "enum";
            /** @description Default false */
            readonly required?: boolean;
            /** @description Allowed values: required (non-empty) for type `enum`, not allowed for other types */
            readonly enumValues?: readonly string[];
        };
        readonly SchemaMetadataFieldInput: {
            /** @description Field identifier; assigned by the server (a UUID) when omitted */
            readonly id?: string;
            /** @description Key of the value in the event's `metadata`; unique within the list. Metadata is flat, so a key may hold dots (`service.name`). */
            readonly name: string;
            /** @enum {string} */
            readonly type: "string" | "number" | "boolean" | "enum";
            /** @description Default false */
            readonly required?: boolean;
            /** @description Allowed values: required (non-empty) for type `enum`, not allowed for other types */
            readonly enumValues?: readonly string[];
        };
        /** @description Key-value pairs attached to every event the app ingests; keys sent with the event win. */
        readonly DefaultMetadata: {
            readonly [key: string]: string | number | boolean;
        };
        readonly IngestResponse: {
            /** @description Count of events taken */
            readonly accepted: number;
            readonly events: readonly {
                /** @description Event id (UUIDv7), in request order */
                readonly id: string;
            }[];
        };
        /** @description 1 to 100 events. A single event object, not in an array, is accepted too: it is a batch of that one event. */
        readonly IngestEventBatch: readonly components["schemas"]["IngestEvent"][];
        readonly IngestEvent: {
            /** @description Event name */
            readonly event: string;
            /** @description Event payload: any JSON object, nested at most 32 levels deep. Default: `{}`. */
            readonly data?: {
                readonly [key: string]: unknown;
            };
            /**
             * @description Default: `"info"`.
             * @enum {string}
             */
            readonly level?: "info" | "warning" | "error" | "success";
            /** @description Optional customer reference */
            readonly customer_id?: string;
            /**
             * Format: date-time
             * @description Event time (default: time of ingestion)
             */
            readonly timestamp?: string;
            /** @description Key-value pairs; merged over the app default metadata */
            readonly metadata?: {
                readonly [key: string]: string | number | boolean;
            };
        };
        /** @description opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse */
        readonly OtlpLogsResponse: {
            /** @description Present when some records were not accepted */
            readonly partialSuccess?: {
                /** @description How many records were not accepted (int64, as a decimal string) */
                readonly rejectedLogRecords: string;
                /** @description Why, for the first of them */
                readonly errorMessage: string;
            };
        };
        /** @description opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest (OTLP/HTTP, JSON mapping); the fields read are listed */
        readonly OtlpLogsRequest: {
            readonly resourceLogs?: readonly ({
                readonly resource?: {
                    readonly attributes?: readonly components["schemas"]["__schema0"][];
                } & {
                    readonly [key: string]: unknown;
                };
                readonly scopeLogs?: readonly ({
                    readonly logRecords?: readonly ({
                        readonly timeUnixNano?: string | number;
                        readonly observedTimeUnixNano?: string | number;
                        readonly severityNumber?: number;
                        readonly severityText?: string;
                        readonly body?: components["schemas"]["__schema1"];
                        readonly attributes?: readonly components["schemas"]["__schema0"][];
                        readonly eventName?: string;
                    } & {
                        readonly [key: string]: unknown;
                    })[];
                } & {
                    readonly [key: string]: unknown;
                })[];
            } & {
                readonly [key: string]: unknown;
            })[];
        } & {
            readonly [key: string]: unknown;
        };
        readonly __schema0: {
            readonly key?: string;
            readonly value?: components["schemas"]["__schema1"];
        } & {
            readonly [key: string]: unknown;
        };
        readonly __schema1: {
            readonly stringValue?: string;
            readonly boolValue?: boolean;
            readonly intValue?: string | number;
            readonly doubleValue?: number;
            readonly arrayValue?: {
                readonly values?: readonly components["schemas"]["__schema1"][];
            } & {
                readonly [key: string]: unknown;
            };
            readonly kvlistValue?: {
                readonly values?: readonly components["schemas"]["__schema0"][];
            } & {
                readonly [key: string]: unknown;
            };
            readonly bytesValue?: string;
        } & {
            readonly [key: string]: unknown;
        };
        readonly EventPage: {
            readonly items: readonly components["schemas"]["Event"][];
            /** @description null when no more pages exist */
            readonly nextCursor: string | null;
        };
        readonly Event: {
            readonly id: string;
            readonly appId: string;
            readonly event: string;
            readonly customer_id?: string;
            readonly data: {
                readonly [key: string]: unknown;
            };
            /** @enum {string} */
            readonly level: "info" | "warning" | "error" | "success";
            readonly metadata: {
                readonly [key: string]: string | number | boolean;
            };
            /** Format: date-time */
            readonly timestamp: string;
            /** Format: date-time */
            readonly ingestedAt: string;
        };
        readonly EventCounts: {
            /** Format: date-time */
            readonly from: string;
            /** Format: date-time */
            readonly to: string;
            /** @enum {string} */
            readonly interval: "minute" | "hour" | "day";
            /** @description Every matching event, whether in a listed series or not */
            readonly total: number;
            /** @description Distinct customer ids among the matching events */
            readonly uniqueCustomers: number;
            readonly series: readonly {
                /** @description The group's value; null for the one series without groupBy */
                readonly key: string | null;
                readonly total: number;
                readonly buckets: readonly {
                    /**
                     * Format: date-time
                     * @description UTC-aligned; the bucket covers [start, start + interval)
                     */
                    readonly start: string;
                    readonly count: number;
                }[];
            }[];
        };
        readonly EventTop: {
            readonly items: readonly {
                readonly key: string;
                readonly count: number;
                /**
                 * Format: date-time
                 * @description Timestamp of the newest matching event
                 */
                readonly lastSeen: string;
            }[];
        };
        readonly CreatedDestination: {
            /** Format: uuid */
            readonly id: string;
            /** Format: uuid */
            readonly appId: string;
            /** @enum {string} */
            readonly type: "slack" | "discord" | "email" | "webhook";
            readonly label: string;
            /** @description Masked: scheme, host and the public part of the path; null for email */
            readonly url: string | null;
            /** @description Null for url types */
            readonly email: string | null;
            /** @description True after a successful test; false again when url or email changes */
            readonly verified: boolean;
            readonly verifiedAt: string | null;
            /** Format: date-time */
            readonly createdAt: string;
            /** Format: date-time */
            readonly updatedAt: string;
            /** @description `whsec_…`, webhook destinations only: the Standard Webhooks signing secret. Shown in this response only; store it now. */
            readonly signingSecret?: string;
        };
        readonly Destination: {
            /** Format: uuid */
            readonly id: string;
            /** Format: uuid */
            readonly appId: string;
            /** @enum {string} */
            readonly type: "slack" | "discord" | "email" | "webhook";
            readonly label: string;
            /** @description Masked: scheme, host and the public part of the path; null for email */
            readonly url: string | null;
            /** @description Null for url types */
            readonly email: string | null;
            /** @description True after a successful test; false again when url or email changes */
            readonly verified: boolean;
            readonly verifiedAt: string | null;
            /** Format: date-time */
            readonly createdAt: string;
            /** Format: date-time */
            readonly updatedAt: string;
        };
        readonly NotificationRule: {
            /** Format: uuid */
            readonly id: string;
            /** Format: uuid */
            readonly appId: string;
            readonly name: string;
            readonly eventName: string;
            readonly conditions: readonly components["schemas"]["Condition"][];
            readonly actions: readonly components["schemas"]["RuleAction"][];
            readonly enabled: boolean;
            /** @enum {string} */
            readonly match: "all" | "any";
            readonly cooldownSeconds: number;
            readonly trigger: components["schemas"]["RuleTrigger"];
            /** @description While in the future, triggers are counted but send nothing */
            readonly snoozedUntil: string | null;
            /** @description Null until the rule first triggers */
            readonly lastTriggeredAt: string | null;
            /** @description Times the rule triggered (matches within a cooldown do not count; recoveries after an absence neither) */
            readonly triggerCount: number;
            /** @description Of those, the triggers made while the rule was snoozed */
            readonly suppressedCount: number;
            /** Format: date-time */
            readonly createdAt: string;
            /** Format: date-time */
            readonly updatedAt: string;
        };
        readonly Condition: {
            readonly id: string;
            readonly field: string;
            /** @enum {string} */
            readonly operator: "equals" | "not_equals" | "contains" | "not_contains" | "greater_than" | "greater_than_or_equal" | "less_than" | "less_than_or_equal" | "exists";
            /** @description Absent for `exists` */
            readonly value?: number | string | boolean;
        };
        readonly RuleAction: {
            /** Format: uuid */
            readonly id: string;
            /** Format: uuid */
            readonly destinationId: string;
            /** @enum {string} */
            readonly channel: "slack" | "discord" | "email" | "webhook";
            /** @description The destination's masked url or its e-mail address */
            readonly target: string | null;
            readonly enabled: boolean;
            /** @description Absent: the default message */
            readonly template?: {
                readonly title?: string;
                readonly body?: string;
            };
        };
        readonly RuleTrigger: {
            /** @constant */
            readonly type: "every";
        } | {
            /** @constant */
            readonly type: "threshold";
            /** @description Matching events (of one group) that make a trigger */
            readonly count: number;
            /** @description The sliding window, by event timestamp */
            readonly windowSeconds: number;
            /** @description Counts per value of this field (`$customer_id`, `metadata.k`, `amount`); events without it are not counted */
            readonly groupBy?: string;
        } | {
            /** @constant */
            readonly type: "absence";
            /** @description Silence, in seconds, that triggers the rule */
            readonly windowSeconds: number;
        };
        readonly ConditionInput: {
            readonly id?: string;
            /** @description Dotted path into `data` (`amount`, `order.total`, `items.0.sku`), `metadata.<key>`, `$level` or `$customer_id` */
            readonly field: string;
            /** @enum {string} */
            readonly operator: "equals" | "not_equals" | "contains" | "not_contains" | "greater_than" | "greater_than_or_equal" | "less_than" | "less_than_or_equal" | "exists";
            /** @description Comparison value; required except for `exists`; a number or numeric string for the numeric operators */
            readonly value?: number | string | boolean;
        };
        readonly RuleActionInput: {
            /** @description Sent back from a read to keep the action id; the server assigns ids */
            readonly id?: string;
            readonly destinationId: string;
            /**
             * @description The destination's type; filled in when omitted, 400 when different
             * @enum {string}
             */
            readonly channel?: "slack" | "discord" | "email" | "webhook";
            /** @description Default: `true`. */
            readonly enabled?: boolean;
            /** @description Ignored; responses show the destination's target */
            readonly target?: string | null;
            /** @description The message this action sends instead of the default; placeholders such as `{{data.amount}}` are filled from the alert */
            readonly template?: components["schemas"]["AlertTemplate"];
        };
        readonly AlertTemplate: {
            /** @description At most 200 characters; replaces the default headline */
            readonly title?: string;
            /** @description At most 4,000 characters; replaces the default text */
            readonly body?: string;
        };
        /** @description Exactly one of `minutes` and `until` */
        readonly SnoozeInput: {
            /** @description Snooze for this many minutes from now */
            readonly minutes?: number;
            /**
             * Format: date-time
             * @description Snooze until this time
             */
            readonly until?: string;
        };
        readonly RulePreview: {
            /** @description Whether the event has the rule's event name and meets its conditions */
            readonly matched: boolean;
            /** @description The stored event rendered; null for a given event or when the app has none of that name */
            readonly eventId: string | null;
            readonly messages: readonly {
                /** Format: uuid */
                readonly destinationId: string;
                /** @enum {string} */
                readonly type: "slack" | "discord" | "email" | "webhook";
                readonly title: string;
                readonly body: string;
            }[];
        };
        readonly RulePreviewInput: {
            /** @description A rule body as for create; nothing is saved */
            readonly rule: {
                /** @description Rule display name, 1–200 characters */
                readonly name: string;
                /** @description Event name watched */
                readonly eventName: string;
                /** @description Default: `true`. */
                readonly enabled?: boolean;
                /**
                 * @description `all`: every condition must hold; `any`: at least one. Default: `"all"`.
                 * @enum {string}
                 */
                readonly match?: "all" | "any";
                /** @description Empty: the rule triggers on every event of the name. Default: `[]`. */
                readonly conditions?: readonly components["schemas"]["ConditionInput"][];
                /** @description Default: `[]`. */
                readonly actions?: readonly components["schemas"]["RuleActionInput"][];
                /** @description After a trigger, matches within this many seconds neither deliver nor count (per group for a grouped threshold). Default: `0`. */
                readonly cooldownSeconds?: number;
                /** @description What makes matching events trigger the rule; default `{ "type": "every" }`. Default: `{"type":"every"}`. */
                readonly trigger?: components["schemas"]["RuleTrigger"];
            };
            /** @description A stored event to render the messages for */
            readonly eventId?: string;
            /** @description An event as for ingest, to render the messages for */
            readonly event?: components["schemas"]["IngestEvent"];
        };
        readonly RuleDryRun: {
            /** @description Stored events of the rule's event name in the range */
            readonly evaluatedEvents: number;
            /** @description Of those, the ones meeting the conditions (and, for a grouped threshold, having the group field) */
            readonly matchedEvents: number;
            /** @description Times the rule would have triggered (recoveries after an absence not counted) */
            readonly triggers: number;
            /** @description The first 100 triggers, oldest first */
            readonly firstTriggers: readonly {
                /** @description The triggering event; null for an absence */
                readonly eventId: string | null;
                /**
                 * Format: date-time
                 * @description The triggering event's timestamp, or the absence deadline
                 */
                readonly timestamp: string;
                /** @description The threshold group; null otherwise */
                readonly group: string | null;
            }[];
        };
        readonly RuleDryRunInput: {
            /** @description A rule body as for create; nothing is saved */
            readonly rule: {
                /** @description Rule display name, 1–200 characters */
                readonly name: string;
                /** @description Event name watched */
                readonly eventName: string;
                /** @description Default: `true`. */
                readonly enabled?: boolean;
                /**
                 * @description `all`: every condition must hold; `any`: at least one. Default: `"all"`.
                 * @enum {string}
                 */
                readonly match?: "all" | "any";
                /** @description Empty: the rule triggers on every event of the name. Default: `[]`. */
                readonly conditions?: readonly components["schemas"]["ConditionInput"][];
                /** @description Default: `[]`. */
                readonly actions?: readonly components["schemas"]["RuleActionInput"][];
                /** @description After a trigger, matches within this many seconds neither deliver nor count (per group for a grouped threshold). Default: `0`. */
                readonly cooldownSeconds?: number;
                /** @description What makes matching events trigger the rule; default `{ "type": "every" }`. Default: `{"type":"every"}`. */
                readonly trigger?: components["schemas"]["RuleTrigger"];
            };
            /**
             * Format: date-time
             * @description Inclusive; default 24 hours before `to`
             */
            readonly from?: string;
            /**
             * Format: date-time
             * @description Exclusive; default now
             */
            readonly to?: string;
        };
        readonly DeliveryPage: {
            readonly items: readonly components["schemas"]["Delivery"][];
            /** @description null when no more pages exist */
            readonly nextCursor: string | null;
        };
        readonly Delivery: {
            /** Format: uuid */
            readonly id: string;
            /** Format: uuid */
            readonly ruleId: string;
            /** Format: uuid */
            readonly actionId: string;
            /** Format: uuid */
            readonly destinationId: string;
            /** Format: uuid */
            readonly eventId: string;
            /**
             * @description `pending` while attempts remain, then `succeeded` or `failed`
             * @enum {string}
             */
            readonly status: "pending" | "succeeded" | "failed";
            readonly attempts: number;
            /** @description Why the last attempt failed; never holds a webhook URL or secret */
            readonly lastError: string | null;
            /** Format: date-time */
            readonly createdAt: string;
            /** Format: date-time */
            readonly updatedAt: string;
        };
        readonly DeliveryWithAttempts: {
            /** Format: uuid */
            readonly id: string;
            /** Format: uuid */
            readonly ruleId: string;
            /** Format: uuid */
            readonly actionId: string;
            /** Format: uuid */
            readonly destinationId: string;
            /** Format: uuid */
            readonly eventId: string;
            /**
             * @description `pending` while attempts remain, then `succeeded` or `failed`
             * @enum {string}
             */
            readonly status: "pending" | "succeeded" | "failed";
            /** @description Every attempt made, oldest first (in the list, `attempts` is their number) */
            readonly attempts: readonly components["schemas"]["DeliveryAttempt"][];
            /** @description Why the last attempt failed; never holds a webhook URL or secret */
            readonly lastError: string | null;
            /** Format: date-time */
            readonly createdAt: string;
            /** Format: date-time */
            readonly updatedAt: string;
        };
        readonly DeliveryAttempt: {
            /** @description From 1, in the order made; a retry by hand goes on counting */
            readonly number: number;
            /** Format: date-time */
            readonly startedAt: string;
            /** @description Whole milliseconds; null while in progress and for an abandoned attempt */
            readonly durationMs: number | null;
            /**
             * @description `abandoned`: the worker making it stopped before recording how it went, and another attempt took over (the receiver may have got it)
             * @enum {string}
             */
            readonly outcome: "in_progress" | "succeeded" | "failed" | "abandoned";
            /** @description The receiver's HTTP status; absent when no HTTP response came */
            readonly httpStatus?: number;
            /** @description Why the attempt failed; never holds a webhook URL or secret */
            readonly error?: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description The account's budget: `"default";q=<requests>;w=<window seconds>`. Absent while the rate limiter is unreachable (requests are then served unchecked). */
        readonly "RateLimit-Policy": string;
        /** @description What is left of the budget: `"default";r=<remaining>;t=<seconds until the window resets>` */
        readonly RateLimit: string;
        /** @description Seconds to wait before trying again */
        readonly "Retry-After": number;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    readonly listClientSecrets: {
        readonly parameters: {
            readonly query?: {
                /** @description Most items to return, 1 to 1000. Default: `100`. */
                readonly limit?: number;
                /** @description Items to skip from the start of the list (oldest first). Default: `0`. */
                readonly offset?: number;
            };
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description Client secrets */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": readonly components["schemas"]["ClientSecret"][];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly createClientSecret: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": {
                    /** @description What the secret is for; 1 to 200 characters, trimmed */
                    readonly label: string;
                    /** @description Default: both read and write. A secret cannot grant a scope it lacks itself (403) */
                    readonly scopes?: readonly ("read" | "write")[];
                };
            };
        };
        readonly responses: {
            /** @description Secret created. A client secret without the `read` scope gets only `clientSecret`, `secret.id` */
            readonly 201: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": {
                        /** @description The full secret (`svc_cs_…`); shown only in this response */
                        readonly clientSecret: string;
                        readonly secret: components["schemas"]["ClientSecret"];
                    };
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with an existing resource */
            readonly 409: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body larger than 1 MiB */
            readonly 413: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not JSON, or in a charset other than UTF-8, or in a content encoding other than gzip, deflate or br */
            readonly 415: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly revokeClientSecret: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description Client secret id (UUID) */
                readonly id: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description Revoked */
            readonly 204: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly listApps: {
        readonly parameters: {
            readonly query?: {
                /** @description Most items to return, 1 to 1000. Default: `100`. */
                readonly limit?: number;
                /** @description Items to skip from the start of the list (oldest first). Default: `0`. */
                readonly offset?: number;
            };
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description A page of apps */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": readonly components["schemas"]["App"][];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly createApp: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": {
                    /** @description Display name, 1–200 characters; surrounding spaces are dropped */
                    readonly name: string;
                    /** @description Generated from the name when omitted (made unique with a numeric suffix) */
                    readonly slug?: string;
                };
            };
        };
        readonly responses: {
            /** @description The app and its full API key, shown this once. A client secret without the `read` scope gets only `app.id`, `apiKey` */
            readonly 201: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["AppWithApiKey"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with an existing resource */
            readonly 409: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body larger than 1 MiB */
            readonly 413: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not JSON, or in a charset other than UTF-8, or in a content encoding other than gzip, deflate or br */
            readonly 415: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly getApp: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description The app */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["App"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly deleteApp: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description Deleted; its API key fails with 401 from now on */
            readonly 204: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly updateApp: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": {
                    /** @description Display name, 1–200 characters; surrounding spaces are dropped */
                    readonly name?: string;
                    /** @description New slug; the old one stops resolving at once */
                    readonly slug?: string;
                };
            };
        };
        readonly responses: {
            /** @description The updated app. A client secret without the `read` scope gets only `id` */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["App"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with an existing resource */
            readonly 409: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body larger than 1 MiB */
            readonly 413: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not JSON, or in a charset other than UTF-8, or in a content encoding other than gzip, deflate or br */
            readonly 415: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly rotateAppKey: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description The app and its new full API key. A client secret without the `read` scope gets only `app.id`, `apiKey` */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["AppWithApiKey"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with an existing resource */
            readonly 409: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly rotateAppKeyAlternatePath: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description The app and its new full API key. A client secret without the `read` scope gets only `app.id`, `apiKey` */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["AppWithApiKey"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with an existing resource */
            readonly 409: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly listEventSchemas: {
        readonly parameters: {
            readonly query?: {
                /** @description Most items to return, 1 to 1000. Default: `100`. */
                readonly limit?: number;
                /** @description Items to skip from the start of the list (oldest first). Default: `0`. */
                readonly offset?: number;
            };
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description A page of event schemas */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": readonly components["schemas"]["EventSchema"][];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly createEventSchema: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": {
                    /** @description Event name, unique within the app: 1–200 characters of `[A-Za-z0-9._:-]` */
                    readonly eventName: string;
                    /** @description Human-readable description */
                    readonly description?: string;
                    /** @description Definitions of the event data fields; at least one */
                    readonly fields: readonly components["schemas"]["SchemaFieldInput"][];
                    /** @description Definitions of metadata fields */
                    readonly metadataFields?: readonly components["schemas"]["SchemaMetadataFieldInput"][];
                };
            };
        };
        readonly responses: {
            /** @description Schema created. A client secret without the `read` scope gets only `id` */
            readonly 201: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["EventSchema"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with an existing resource */
            readonly 409: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body larger than 1 MiB */
            readonly 413: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not JSON, or in a charset other than UTF-8, or in a content encoding other than gzip, deflate or br */
            readonly 415: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly getEventSchemaByEventName: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
                /** @description The event name; dotted names such as `order.created` work as they are */
                readonly eventName: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description The event schema */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["EventSchema"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly deleteEventSchema: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
                /** @description The schema id */
                readonly schemaId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description Deleted */
            readonly 204: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly updateEventSchema: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
                /** @description The schema id */
                readonly schemaId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": {
                    /** @description Human-readable description */
                    readonly description?: string;
                    /** @description Replaces the existing fields entirely; at least one */
                    readonly fields?: readonly components["schemas"]["SchemaFieldInput"][];
                    /** @description Replaces the existing metadata fields entirely */
                    readonly metadataFields?: readonly components["schemas"]["SchemaMetadataFieldInput"][];
                };
            };
        };
        readonly responses: {
            /** @description The updated event schema. A client secret without the `read` scope gets only `id` */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["EventSchema"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with an existing resource */
            readonly 409: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body larger than 1 MiB */
            readonly 413: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not JSON, or in a charset other than UTF-8, or in a content encoding other than gzip, deflate or br */
            readonly 415: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly getDefaultMetadata: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description The default metadata ({} when none is set) */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["DefaultMetadata"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly replaceDefaultMetadata: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": components["schemas"]["DefaultMetadata"];
            };
        };
        readonly responses: {
            /** @description The stored default metadata. A client secret without the `read` scope gets only `` */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["DefaultMetadata"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with an existing resource */
            readonly 409: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body larger than 1 MiB */
            readonly 413: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not JSON, or in a charset other than UTF-8, or in a content encoding other than gzip, deflate or br */
            readonly 415: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly ingestEvents: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: {
                /** @description Makes a retry safe: a repeat of the same body under the same key within 24 hours gets the first answer back and stores nothing new; the same key with another body, or while its first request is still being answered, is a 409. 1 to 255 printable ASCII characters; use one key per batch of events. */
                readonly "Idempotency-Key"?: string;
            };
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": components["schemas"]["IngestEventBatch"];
            };
        };
        readonly responses: {
            /** @description Accepted and durable */
            readonly 202: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["IngestResponse"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with an existing resource */
            readonly 409: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body larger than 1 MiB */
            readonly 413: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not JSON, or in a charset other than UTF-8, or in a content encoding other than gzip, deflate or br */
            readonly 415: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly sendTestEvent: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: {
                /** @description Makes a retry safe: a repeat of the same body under the same key within 24 hours gets the first answer back and stores nothing new; the same key with another body, or while its first request is still being answered, is a 409. 1 to 255 printable ASCII characters; use one key per batch of events. */
                readonly "Idempotency-Key"?: string;
            };
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": components["schemas"]["IngestEvent"];
            };
        };
        readonly responses: {
            /** @description Accepted and durable. A client secret without the `read` scope gets only `accepted`, `events` */
            readonly 202: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["IngestResponse"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with an existing resource */
            readonly 409: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body larger than 1 MiB */
            readonly 413: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not JSON, or in a charset other than UTF-8, or in a content encoding other than gzip, deflate or br */
            readonly 415: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly exportOtlpLogs: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: {
                /** @description Makes a retry safe: a repeat of the same body under the same key within 24 hours gets the first answer back and stores nothing new; the same key with another body, or while its first request is still being answered, is a 409. 1 to 255 printable ASCII characters; use one key per batch of events. */
                readonly "Idempotency-Key"?: string;
            };
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/x-protobuf": string;
                readonly "application/json": components["schemas"]["OtlpLogsRequest"];
            };
        };
        readonly responses: {
            /** @description The accepted records are durable; `partialSuccess` counts the others */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/x-protobuf": string;
                    readonly "application/json": components["schemas"]["OtlpLogsResponse"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with an existing resource */
            readonly 409: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body larger than 1 MiB */
            readonly 413: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not JSON, or in a charset other than UTF-8, or in a content encoding other than gzip, deflate or br */
            readonly 415: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly listEvents: {
        readonly parameters: {
            readonly query?: {
                /** @description Only events of this level */
                readonly level?: "info" | "warning" | "error" | "success";
                /** @description Event name */
                readonly type?: string;
                /** @description Only the events of this customer */
                readonly customer_id?: string;
                /** @description Start of the time range (inclusive) */
                readonly from?: string;
                /** @description End of the time range (exclusive) */
                readonly to?: string;
                /** @description Most items on the page, 1 to 100. Default: `25`. */
                readonly limit?: number;
                /** @description Opaque cursor taken from the previous response */
                readonly cursor?: string;
            };
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description One page of events */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["EventPage"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly getEvent: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
                /** @description The event id, as ingest answered it */
                readonly eventId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description The event */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Event"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly countEvents: {
        readonly parameters: {
            readonly query?: {
                /** @description Only events of this level */
                readonly level?: "info" | "warning" | "error" | "success";
                /** @description Event name */
                readonly type?: string;
                /** @description Only the events of this customer */
                readonly customer_id?: string;
                /** @description Start of the time range (inclusive) */
                readonly from?: string;
                /** @description End of the time range (exclusive) */
                readonly to?: string;
                /** @description Bucket length; by default minute up to 6 h, hour up to 14 days, else day */
                readonly interval?: "minute" | "hour" | "day";
                /** @description One series per value of this field */
                readonly groupBy?: "level" | "event" | "customer_id";
                /** @description With groupBy: the number of series, the largest by total. Default: `10`. */
                readonly limit?: number;
            };
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description Counts over time */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["EventCounts"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly topEventValues: {
        readonly parameters: {
            readonly query: {
                /** @description Only events of this level */
                readonly level?: "info" | "warning" | "error" | "success";
                /** @description Event name */
                readonly type?: string;
                /** @description Only the events of this customer */
                readonly customer_id?: string;
                /** @description Start of the time range (inclusive) */
                readonly from?: string;
                /** @description End of the time range (exclusive) */
                readonly to?: string;
                /** @description The field whose values are ranked */
                readonly by: "level" | "event" | "customer_id";
                /** @description Most values to return, the commonest first. Default: `10`. */
                readonly limit?: number;
            };
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description The top values */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["EventTop"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly listDestinations: {
        readonly parameters: {
            readonly query?: {
                /** @description Most items to return, 1 to 1000. Default: `100`. */
                readonly limit?: number;
                /** @description Items to skip from the start of the list (oldest first). Default: `0`. */
                readonly offset?: number;
            };
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description A page of destinations */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": readonly components["schemas"]["Destination"][];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly createDestination: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": {
                    /**
                     * @description Channel type
                     * @enum {string}
                     */
                    readonly type: "slack" | "discord" | "email" | "webhook";
                    /** @description Display label, 1–200 characters */
                    readonly label: string;
                    /**
                     * Format: uri
                     * @description Webhook URL (slack, discord, webhook). A secret: responses show it masked.
                     */
                    readonly url?: string;
                    /**
                     * Format: email
                     * @description Recipient address (email)
                     */
                    readonly email?: string;
                };
            };
        };
        readonly responses: {
            /** @description Created; a webhook destination carries its signing secret this once. A client secret without the `read` scope gets only `id`, `signingSecret` */
            readonly 201: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["CreatedDestination"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with an existing resource */
            readonly 409: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body larger than 1 MiB */
            readonly 413: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not JSON, or in a charset other than UTF-8, or in a content encoding other than gzip, deflate or br */
            readonly 415: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly getDestination: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
                /** @description The destination id */
                readonly destinationId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description The destination */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Destination"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly deleteDestination: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
                /** @description The destination id */
                readonly destinationId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description Deleted */
            readonly 204: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with an existing resource */
            readonly 409: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly updateDestination: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
                /** @description The destination id */
                readonly destinationId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": {
                    /** @description Display name, 1–200 characters; surrounding spaces are dropped */
                    readonly label?: string;
                    /**
                     * Format: uri
                     * @description Webhook URL (slack, discord, webhook). A secret: responses show it masked.
                     */
                    readonly url?: string;
                    /**
                     * Format: email
                     * @description Recipient address (email)
                     */
                    readonly email?: string;
                };
            };
        };
        readonly responses: {
            /** @description The updated destination. A client secret without the `read` scope gets only `id` */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Destination"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with an existing resource */
            readonly 409: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body larger than 1 MiB */
            readonly 413: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not JSON, or in a charset other than UTF-8, or in a content encoding other than gzip, deflate or br */
            readonly 415: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly testDestination: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
                /** @description The destination id */
                readonly destinationId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description Delivered; the destination, now verified. A client secret without the `read` scope gets only `id` */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Destination"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with an existing resource */
            readonly 409: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The receiver refused or failed the delivery; `message` says why */
            readonly 502: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly listNotificationRules: {
        readonly parameters: {
            readonly query?: {
                /** @description Most items to return, 1 to 1000. Default: `100`. */
                readonly limit?: number;
                /** @description Items to skip from the start of the list (oldest first). Default: `0`. */
                readonly offset?: number;
            };
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description A page of rules */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": readonly components["schemas"]["NotificationRule"][];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly createNotificationRule: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": {
                    /** @description Rule display name, 1–200 characters */
                    readonly name: string;
                    /** @description Event name watched */
                    readonly eventName: string;
                    /** @description Default: `true`. */
                    readonly enabled?: boolean;
                    /**
                     * @description `all`: every condition must hold; `any`: at least one. Default: `"all"`.
                     * @enum {string}
                     */
                    readonly match?: "all" | "any";
                    /** @description Empty: the rule triggers on every event of the name. Default: `[]`. */
                    readonly conditions?: readonly components["schemas"]["ConditionInput"][];
                    /** @description Default: `[]`. */
                    readonly actions?: readonly components["schemas"]["RuleActionInput"][];
                    /** @description After a trigger, matches within this many seconds neither deliver nor count (per group for a grouped threshold). Default: `0`. */
                    readonly cooldownSeconds?: number;
                    /** @description What makes matching events trigger the rule; default `{ "type": "every" }`. Default: `{"type":"every"}`. */
                    readonly trigger?: components["schemas"]["RuleTrigger"];
                };
            };
        };
        readonly responses: {
            /** @description The created rule. A client secret without the `read` scope gets only `id` */
            readonly 201: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["NotificationRule"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with an existing resource */
            readonly 409: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body larger than 1 MiB */
            readonly 413: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not JSON, or in a charset other than UTF-8, or in a content encoding other than gzip, deflate or br */
            readonly 415: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly getNotificationRule: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
                /** @description The rule id */
                readonly ruleId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description The rule */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["NotificationRule"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly deleteNotificationRule: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
                /** @description The rule id */
                readonly ruleId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description Deleted */
            readonly 204: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly updateNotificationRule: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
                /** @description The rule id */
                readonly ruleId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": {
                    /** @description Rule display name, 1–200 characters */
                    readonly name?: string;
                    /** @description Event name watched */
                    readonly eventName?: string;
                    readonly enabled?: boolean;
                    /**
                     * @description `all`: every condition must hold; `any`: at least one
                     * @enum {string}
                     */
                    readonly match?: "all" | "any";
                    /** @description Replaces the conditions entirely */
                    readonly conditions?: readonly components["schemas"]["ConditionInput"][];
                    /** @description Replaces the actions entirely */
                    readonly actions?: readonly components["schemas"]["RuleActionInput"][];
                    /** @description After a trigger, matches within this many seconds neither deliver nor count (per group for a grouped threshold) */
                    readonly cooldownSeconds?: number;
                    /** @description What makes matching events trigger the rule; default `{ "type": "every" }` */
                    readonly trigger?: components["schemas"]["RuleTrigger"];
                };
            };
        };
        readonly responses: {
            /** @description The updated rule. A client secret without the `read` scope gets only `id` */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["NotificationRule"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with an existing resource */
            readonly 409: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body larger than 1 MiB */
            readonly 413: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not JSON, or in a charset other than UTF-8, or in a content encoding other than gzip, deflate or br */
            readonly 415: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly snoozeNotificationRule: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
                /** @description The rule id */
                readonly ruleId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": components["schemas"]["SnoozeInput"];
            };
        };
        readonly responses: {
            /** @description The rule, with `snoozedUntil`. A client secret without the `read` scope gets only `id` */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["NotificationRule"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with an existing resource */
            readonly 409: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body larger than 1 MiB */
            readonly 413: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not JSON, or in a charset other than UTF-8, or in a content encoding other than gzip, deflate or br */
            readonly 415: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly unsnoozeNotificationRule: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
                /** @description The rule id */
                readonly ruleId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description The rule, with `snoozedUntil: null`. A client secret without the `read` scope gets only `id` */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["NotificationRule"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly previewNotificationRule: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": components["schemas"]["RulePreviewInput"];
            };
        };
        readonly responses: {
            /** @description The messages */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["RulePreview"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with an existing resource */
            readonly 409: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body larger than 1 MiB */
            readonly 413: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not JSON, or in a charset other than UTF-8, or in a content encoding other than gzip, deflate or br */
            readonly 415: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly dryRunNotificationRule: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody: {
            readonly content: {
                readonly "application/json": components["schemas"]["RuleDryRunInput"];
            };
        };
        readonly responses: {
            /** @description What the rule would have done */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["RuleDryRun"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with an existing resource */
            readonly 409: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body larger than 1 MiB */
            readonly 413: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body not JSON, or in a charset other than UTF-8, or in a content encoding other than gzip, deflate or br */
            readonly 415: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly listDeliveries: {
        readonly parameters: {
            readonly query?: {
                /** @description Only the deliveries of this rule (deleted rules included) */
                readonly ruleId?: string;
                /** @description Only the deliveries in this state */
                readonly status?: "pending" | "succeeded" | "failed";
                /** @description Most items on the page, 1 to 100. Default: `25`. */
                readonly limit?: number;
                /** @description Opaque cursor taken from the previous response */
                readonly cursor?: string;
            };
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description One page of deliveries */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["DeliveryPage"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly getDelivery: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
                /** @description The delivery id */
                readonly deliveryId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description The delivery and every attempt made, oldest first */
            readonly 200: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["DeliveryWithAttempts"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly retryDelivery: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path: {
                /** @description The app UUID or the app slug */
                readonly appId: string;
                /** @description The delivery id */
                readonly deliveryId: string;
            };
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description Accepted: the delivery, now pending. A client secret without the `read` scope gets only `id` */
            readonly 202: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["DeliveryWithAttempts"];
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Credentials missing or invalid */
            readonly 401: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Valid credentials with insufficient scope */
            readonly 403: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Resource not found */
            readonly 404: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflict with an existing resource */
            readonly 409: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limited; see Retry-After */
            readonly 429: {
                headers: {
                    readonly "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    readonly RateLimit: components["headers"]["RateLimit"];
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry after Retry-After */
            readonly 503: {
                headers: {
                    readonly "Retry-After": components["headers"]["Retry-After"];
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readonly getOpenApiDocument: {
        readonly parameters: {
            readonly query?: never;
            readonly header?: never;
            readonly path?: never;
            readonly cookie?: never;
        };
        readonly requestBody?: never;
        readonly responses: {
            /** @description The OpenAPI document */
            readonly 200: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": {
                        readonly [key: string]: unknown;
                    };
                };
            };
            /** @description Validation error: `message` says what is wrong, `details` lists each problem */
            readonly 400: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected internal failure */
            readonly 500: {
                headers: {
                    readonly [name: string]: unknown;
                };
                content: {
                    readonly "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
