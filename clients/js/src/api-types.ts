/**
 * Generated from the ingest operation of GET /v1/openapi.json by `npm run dashboard:types` in the
 * service's repository (openapi-typescript); do not edit.
 */
export interface paths {
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
        /** @description 1 to 100 events. A single event object, not in an array, is accepted too: it is a batch of that one event. */
        readonly IngestEventBatch: readonly components["schemas"]["IngestEvent"][];
        readonly IngestResponse: {
            /** @description Count of events taken */
            readonly accepted: number;
            readonly events: readonly {
                /** @description Event id (UUIDv7), in request order */
                readonly id: string;
            }[];
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
}
