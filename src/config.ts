import { z } from 'zod';

/**
 * The only module that reads the environment. Every setting of the service (listen address, data
 * directory, mode and role, bootstrap secret, outbound address policy, rate limit, mail, log level),
 * plus the few an operator needs to share one Kafka or ClickHouse cluster between deployments.
 * `.env.example` documents each variable; test/unit/config.test.ts keeps the two in step.
 */

const boolean = z.enum(['true', 'false'], { error: 'expected true or false' }).transform((v) => v === 'true');

/**
 * Bounds of the worker's fetch. A fetch holds up to twice the minimum (at least 8 MiB) per partition
 * in memory; and a member sends its heartbeat between fetches, so a wait must stay well inside the
 * 10 s session timeout after which the group gives its partitions to another member.
 */
const MAX_FETCH_MIN_BYTES = 64 * 1024 * 1024;
const MAX_FETCH_WAIT_MS = 5_000;

/**
 * What a worker's fetch waits for unless KAFKA_FETCH_MIN_BYTES and KAFKA_FETCH_MAX_WAIT_MS say
 * otherwise: 2 MiB of a partition, or 200 ms. Without a minimum the broker answers as soon as anything
 * is there, and under a steady trickle the worker stores a handful of rows per INSERT: each INSERT is
 * a new ClickHouse part, and merging thousands of tiny parts cost ClickHouse more CPU than the events
 * themselves (bench/NOTES.md). The wait adds at most that much to ingest→readable latency (target p99
 * 2 s), and it also bounds how long a worker's stop waits for an idle consumer and how late a member
 * notices a rebalance, so it is kept short. On a ClickHouse cluster every INSERT also costs Keeper
 * work, whatever its size, so larger installations raise both (docs/capacity.md).
 */
export const KAFKA_FETCH_DEFAULTS = { minBytes: 2 * 1024 * 1024, maxWaitMs: 200 } as const;

const positiveInt = (what: string) =>
  z
    .string()
    .regex(/^[1-9][0-9]*$/, { error: `expected ${what} as a positive whole number` })
    .transform(Number);

const wholeNumber = (what: string, max: number) =>
  z
    .string()
    .regex(/^(0|[1-9][0-9]*)$/, { error: `expected ${what} as a whole number` })
    .transform(Number)
    .refine((n) => n <= max, { error: `expected at most ${max}` });

/** 0 asks the OS for any free port (tests, several processes on one host). */
const port = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,4})$/, { error: 'expected a TCP port number from 0 to 65535' })
  .transform(Number)
  .refine((n) => n <= 65535, { error: 'expected a TCP port number from 0 to 65535' });

const isUrlOf = (protocols: string[], value: string): boolean => {
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

const startingWith = (protocols: string[]) => protocols.map((p) => `${p}//`).join(' or ');

const url = (protocols: string[]) => z.string().refine((v) => isUrlOf(protocols, v), { error: `expected a URL starting with ${startingWith(protocols)}` });

/** A comma list of URLs. A bad one is named by its place, not its text: a URL may carry a password. */
const urlList = (protocols: string[]) =>
  z.string().transform((text, ctx): string[] => {
    const urls = text.split(',').map((part) => part.trim());
    const bad = urls.findIndex((v) => !isUrlOf(protocols, v));
    if (bad !== -1) {
      ctx.addIssue({ code: 'custom', message: `expected a comma list of URLs starting with ${startingWith(protocols)}; item ${bad + 1} is not one` });
      return z.NEVER;
    }
    return urls;
  });

/** A name ClickHouse takes unquoted: a database or a cluster. */
const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, { error: 'expected an identifier of letters, digits and _' });

const SECRET_FORM = /^svc_cs_[A-Za-z0-9_-]{32,}$/;

/**
 * Client secrets printed in this project's own files (examples, manifests, tests). Anyone can read them,
 * so a service reachable by others must not run with one: distributed mode refuses them as
 * BOOTSTRAP_CLIENT_SECRET. test/unit/public-secrets.test.ts fails when a file gains a secret-shaped
 * value that is missing here.
 */
export const PUBLIC_CLIENT_SECRETS: ReadonlySet<string> = new Set([
  'svc_cs_CHANGE-ME-CHANGE-ME-CHANGE-ME-CHANGE-ME',
  'svc_cs_change-me-change-me-change-me-0000',
  'svc_cs_not-a-real-secret-0000000000000000000',
]);

/** RETRY_SCHEDULE_MS as an operator writes it; test/unit/config.test.ts keeps the two equal. */
export const DEFAULT_RETRY_SCHEDULE = '0,10s,30s,90s,5m,15m,30m,1h';

const DURATION_UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** `0,10s,30s,90s,5m,15m,30m,1h`: one nominal delay per attempt (see domain/retry-schedule.ts). */
const retrySchedule = z.string().transform((text, ctx): number[] => {
  const delays: number[] = [];
  for (const part of text.split(',')) {
    const match = /^(\d{1,9})(ms|s|m|h)?$/.exec(part.trim());
    if (!match) {
      ctx.addIssue({ code: 'custom', message: `expected a comma list of durations such as 0,10s,5m,1h; "${part}" is not one` });
      return z.NEVER;
    }
    delays.push(Number(match[1]) * DURATION_UNITS_MS[(match[2] ?? 'ms') as keyof typeof DURATION_UNITS_MS]);
  }
  if (delays.some((delay, i) => i > 0 && delay < delays[i - 1]!)) {
    ctx.addIssue({ code: 'custom', message: 'expected each delay to be at least the one before it' });
    return z.NEVER;
  }
  return delays;
});

/** Each key is an environment variable; `describe` is the text of `.env.example` and the README table. */
export const envSchema = z.object({
  PORT: port.default(3000).describe('HTTP listen port'),
  HOST: z.string().min(1, { error: 'expected a host name or address' }).default('0.0.0.0').describe('HTTP listen address'),
  DATA_DIR: z.string().min(1, { error: 'expected a directory path' }).default('./data').describe('Where embedded mode keeps its files (SQLite metadata, chDB events, the bus journal)'),
  ROLE: z.enum(['all', 'api', 'worker'], { error: 'expected all, api or worker' }).default('all').describe('Which part runs in this process: all, api or worker (api and worker need distributed mode)'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { error: 'expected fatal, error, warn, info, debug, trace or silent' })
    .default('info')
    .describe('pino log level'),
  KAFKA_BROKERS: z
    .string()
    .regex(/^[^\s,:]+:\d+(,[^\s,:]+:\d+)*$/, { error: 'expected a comma list of host:port' })
    .optional()
    .describe('Comma list of Kafka brokers (host:port). Set = distributed mode; unset = embedded mode'),
  KAFKA_TOPIC_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9._-]{0,100}$/, { error: 'expected up to 100 characters of A-Z a-z 0-9 . _ -' })
    .default('eas.')
    .describe('Prefix of every Kafka topic and consumer group name (distributed mode)'),
  KAFKA_FETCH_MIN_BYTES: positiveInt('a number of bytes')
    .refine((n) => n <= MAX_FETCH_MIN_BYTES, { error: `expected at most ${MAX_FETCH_MIN_BYTES} (64 MiB)` })
    .default(KAFKA_FETCH_DEFAULTS.minBytes)
    .describe("A worker's fetch from a partition waits until it has this many bytes (or KAFKA_FETCH_MAX_WAIT_MS passed): each fetch is one ClickHouse INSERT, so larger fetches mean fewer, larger parts (distributed mode)"),
  KAFKA_FETCH_MAX_WAIT_MS: positiveInt('milliseconds')
    .refine((n) => n <= MAX_FETCH_WAIT_MS, { error: `expected at most ${MAX_FETCH_WAIT_MS}` })
    .default(KAFKA_FETCH_DEFAULTS.maxWaitMs)
    .describe('Longest a fetch waits for KAFKA_FETCH_MIN_BYTES: it adds up to this much to the time until an event is readable, and to a worker\'s stop (distributed mode)'),
  CLICKHOUSE_URL: url(['http:', 'https:'])
    .optional()
    .describe('ClickHouse HTTP interface, e.g. http://user:password@host:8123 (distributed mode needs this or CLICKHOUSE_URLS)'),
  CLICKHOUSE_URLS: urlList(['http:', 'https:'])
    .optional()
    .describe(
      "Instead of CLICKHOUSE_URL, a comma list of the HTTP interfaces of a cluster's nodes (several need CLICKHOUSE_CLUSTER): requests go to one node and move to the next when it cannot be reached",
    ),
  CLICKHOUSE_CLUSTER: identifier
    .optional()
    .describe(
      "Name of a cluster in the ClickHouse servers' configuration (remote_servers): set, the event tables are replicated tables per shard behind Distributed tables, created ON CLUSTER; unset, plain tables on one server",
    ),
  CLICKHOUSE_DATABASE: identifier.default('event_alerting').describe('ClickHouse database that holds the events (created if missing)'),
  REDIS_URL: url(['redis:', 'rediss:']).optional().describe('Redis URL, e.g. redis://host:6379 (required in distributed mode)'),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{0,100}$/, { error: 'expected up to 100 characters of A-Z a-z 0-9 . _ : -' })
    .default('')
    .describe('Prefix of every key and channel of the shared state in Redis, so several installations can share one Redis (distributed mode)'),
  DATABASE_URL: url(['postgres:', 'postgresql:']).optional().describe('PostgreSQL URL for metadata, e.g. postgres://user@host:5432/db (required in distributed mode)'),
  BOOTSTRAP_CLIENT_SECRET: z
    .string()
    .regex(SECRET_FORM, { error: 'expected svc_cs_ followed by at least 32 URL-safe characters (A-Z a-z 0-9 _ -)' })
    .optional()
    .describe('At start, make this exact value an active client secret (label bootstrap, all scopes) of the bootstrap account'),
  BOOTSTRAP_ACCOUNT_NAME: z.string().min(1, { error: 'expected a non-empty name' }).max(200).default('default').describe('Name of the account BOOTSTRAP_CLIENT_SECRET belongs to'),
  CORS_ALLOWED_ORIGINS: z
    .string()
    .regex(/^(\*|https?:\/\/[^\s,/]+(,https?:\/\/[^\s,/]+)*)?$/, { error: 'expected * or a comma list of origins such as https://shop.example.com' })
    .default('')
    .describe('Origins whose web pages may send events (POST /v1/ingest, /v1/otlp/v1/logs) with an API key: a comma list, or * for any; empty allows none'),
  OUTBOUND_ALLOW_PRIVATE: boolean.default(false).describe('true lets destinations point at loopback, private and link-local addresses (local testing only)'),
  RATE_LIMIT_POINTS: positiveInt('a request count').default(1000).describe('Per-account request budget: this many requests ...'),
  RATE_LIMIT_DURATION_S: positiveInt('a number of seconds').default(1).describe('... per this many seconds, shared by every API process'),
  SMTP_URL: url(['smtp:', 'smtps:']).optional().describe('Mail server for e-mail destinations, e.g. smtp://user:pass@host:587'),
  SMTP_FROM: z.email({ error: 'expected an e-mail address' }).optional().describe('Sender address of alert e-mails'),
  DELIVERY_RETRY_SCHEDULE: retrySchedule
    .prefault(DEFAULT_RETRY_SCHEDULE)
    .describe('Alert delivery attempts: the delay before each, from the previous one (jittered between neighbours); after the last, the delivery is dead-lettered'),
  SHUTDOWN_TIMEOUT_MS: positiveInt('milliseconds').default(10_000).describe('Longest a graceful shutdown (SIGTERM) may take before the process exits anyway'),
  IDEMPOTENCY_KEYS_PER_APP: positiveInt('a number of keys')
    .default(100_000)
    .describe('Idempotency-Key records kept per app (24 h each); past this many, the oldest are forgotten first'),
  EVENT_RETENTION_DAYS: wholeNumber('a number of days', 36_500)
    .default(90)
    .describe('Events older than this many days (by their timestamp) are no longer read or counted and are deleted in the background; 0 keeps everything'),
  EVENT_UPKEEP_INTERVAL_S: positiveInt('a number of seconds')
    .default(60)
    .describe('How often a worker deletes the days past the retention and compacts past days of the event store'),
});

export type EnvName = keyof typeof envSchema.shape;

export interface DistributedConfig {
  readonly kafkaBrokers: readonly string[];
  readonly kafkaTopicPrefix: string;
  /** What a worker's fetch from a partition waits for: this many bytes, or this long. */
  readonly kafkaFetch: { readonly minBytes: number; readonly maxWaitMs: number };
  /** The ClickHouse nodes, in the order they are tried (at least one). */
  readonly clickhouseUrls: readonly string[];
  readonly clickhouseDatabase: string;
  /** The cluster the event tables are spread over, or null for plain tables on one server. */
  readonly clickhouseCluster: string | null;
  readonly redisUrl: string;
  /** Prefix of the state store's keys and channels; '' by default. */
  readonly redisKeyPrefix: string;
  readonly databaseUrl: string;
}

export interface Config {
  readonly mode: 'embedded' | 'distributed';
  readonly role: 'all' | 'api' | 'worker';
  readonly http: { readonly host: string; readonly port: number; readonly corsAllowedOrigins: readonly string[] };
  readonly logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  readonly dataDir: string;
  /** Present exactly when mode is distributed. */
  readonly distributed: DistributedConfig | null;
  readonly clickhouseDatabase: string;
  /** Prefix of bus topics and consumer groups (the in-process bus uses the same names). */
  readonly topicPrefix: string;
  readonly bootstrap: { readonly clientSecret: string | null; readonly accountName: string };
  readonly outbound: { readonly allowPrivate: boolean };
  readonly rateLimit: { readonly points: number; readonly durationSeconds: number };
  readonly smtp: { readonly url: string | null; readonly from: string | null };
  /** Nominal delay before each delivery attempt, in milliseconds. */
  readonly deliveryRetryScheduleMs: readonly number[];
  readonly shutdownTimeoutMs: number;
  readonly idempotencyKeysPerApp: number;
  readonly events: { readonly retentionDays: number; readonly upkeepIntervalMs: number };
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const REQUIRED_WHEN_DISTRIBUTED = ['REDIS_URL', 'DATABASE_URL'] as const;

/** Validates the environment; throws a ConfigError naming every bad variable and its expected form. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  // An empty value means "not set", as in most .env tooling.
  const input = Object.fromEntries(Object.keys(envSchema.shape).map((k) => [k, env[k] === '' ? undefined : env[k]]));
  const parsed = envSchema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${String(i.path[0])}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;

  const problems: string[] = [];
  if (e.CLICKHOUSE_URL && e.CLICKHOUSE_URLS) {
    problems.push(`  CLICKHOUSE_URLS: set either CLICKHOUSE_URL (one server) or CLICKHOUSE_URLS (several nodes), not both: which to use would be ambiguous`);
  } else if (e.CLICKHOUSE_URLS && e.CLICKHOUSE_URLS.length > 1 && !e.CLICKHOUSE_CLUSTER) {
    problems.push(`  CLICKHOUSE_URLS: several nodes are the nodes of a cluster: set CLICKHOUSE_CLUSTER to its name (separate servers would each hold some of the events)`);
  }
  if (e.KAFKA_BROKERS) {
    if (!e.CLICKHOUSE_URL && !e.CLICKHOUSE_URLS) {
      problems.push(`  CLICKHOUSE_URL: required when KAFKA_BROKERS is set (distributed mode), or CLICKHOUSE_URLS for several nodes`);
    }
    for (const name of REQUIRED_WHEN_DISTRIBUTED) {
      if (!e[name]) problems.push(`  ${name}: required when KAFKA_BROKERS is set (distributed mode)`);
    }
    if (e.BOOTSTRAP_CLIENT_SECRET !== undefined && PUBLIC_CLIENT_SECRETS.has(e.BOOTSTRAP_CLIENT_SECRET)) {
      problems.push(`  BOOTSTRAP_CLIENT_SECRET: this value is published in the project's own files; generate your own: echo "svc_cs_$(openssl rand -base64 33 | tr '+/' '-_' | tr -d '=')"`);
    }
  } else if (e.ROLE !== 'all') {
    problems.push(`  ROLE: expected all in embedded mode (api and worker roles need KAFKA_BROKERS)`);
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);

  const distributed: DistributedConfig | null = e.KAFKA_BROKERS
    ? {
        kafkaBrokers: e.KAFKA_BROKERS.split(','),
        kafkaTopicPrefix: e.KAFKA_TOPIC_PREFIX,
        kafkaFetch: { minBytes: e.KAFKA_FETCH_MIN_BYTES, maxWaitMs: e.KAFKA_FETCH_MAX_WAIT_MS },
        clickhouseUrls: e.CLICKHOUSE_URLS ?? [e.CLICKHOUSE_URL!],
        clickhouseDatabase: e.CLICKHOUSE_DATABASE,
        clickhouseCluster: e.CLICKHOUSE_CLUSTER ?? null,
        redisUrl: e.REDIS_URL!,
        redisKeyPrefix: e.REDIS_KEY_PREFIX,
        databaseUrl: e.DATABASE_URL!,
      }
    : null;

  return deepFreeze({
    mode: distributed ? 'distributed' : 'embedded',
    role: e.ROLE,
    http: { host: e.HOST, port: e.PORT, corsAllowedOrigins: e.CORS_ALLOWED_ORIGINS === '' ? [] : e.CORS_ALLOWED_ORIGINS.split(',') },
    logLevel: e.LOG_LEVEL,
    dataDir: e.DATA_DIR,
    distributed,
    clickhouseDatabase: e.CLICKHOUSE_DATABASE,
    topicPrefix: e.KAFKA_TOPIC_PREFIX,
    bootstrap: { clientSecret: e.BOOTSTRAP_CLIENT_SECRET ?? null, accountName: e.BOOTSTRAP_ACCOUNT_NAME },
    outbound: { allowPrivate: e.OUTBOUND_ALLOW_PRIVATE },
    rateLimit: { points: e.RATE_LIMIT_POINTS, durationSeconds: e.RATE_LIMIT_DURATION_S },
    smtp: { url: e.SMTP_URL ?? null, from: e.SMTP_FROM ?? null },
    deliveryRetryScheduleMs: e.DELIVERY_RETRY_SCHEDULE,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    idempotencyKeysPerApp: e.IDEMPOTENCY_KEYS_PER_APP,
    events: { retentionDays: e.EVENT_RETENTION_DAYS, upkeepIntervalMs: e.EVENT_UPKEEP_INTERVAL_S * 1000 },
  } satisfies Config);
}

/**
 * Reads the real process environment; main.ts is its only caller. A role given on the command line
 * (`node dist/main.js worker`, how the one container image is told its role) overrides ROLE.
 */
export function loadConfigFromProcess(argv: readonly string[]): Config {
  const [role, ...rest] = argv;
  if (rest.length > 0 || (role !== undefined && !['all', 'api', 'worker'].includes(role))) {
    throw new ConfigError(`Invalid command line: expected at most one argument, the role (all, api or worker)`);
  }
  return loadConfig(role ? { ...process.env, ROLE: role } : process.env);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
