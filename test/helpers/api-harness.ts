import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createContainer, type Container } from '../../src/container.js';
import { startServer, type RunningServer } from '../../src/server.js';
import type { ClientSecretScope } from '../../src/ports/metadata.js';
import { capturingLogger } from './logger.js';
import { isolatedDistributedEnv } from './distributed-env.js';
import { startHttpReceiver } from './receivers.js';
import { afterAll, beforeAll } from 'vitest';

/**
 * A mail server is configured (so e-mail destinations are accepted) but nothing listens there (port 9,
 * discard): for suites that create e-mail destinations without sending to them.
 */
export const UNREACHABLE_MAIL_SERVER = { SMTP_URL: 'smtp://127.0.0.1:9', SMTP_FROM: 'alerts@example.com' } as const;

export type Mode = 'embedded' | 'distributed';
export const MODES: readonly Mode[] = ['embedded', 'distributed'];

export interface TestAccount {
  readonly accountId: string;
  readonly secret: string;
  /** `Authorization` header for this account's secret. */
  readonly auth: { readonly authorization: string };
}

export interface ApiHarness {
  readonly mode: Mode;
  readonly url: string;
  readonly container: Container;
  /** Every log line the service wrote so far (pino JSON). */
  logLines(): string[];
  /** A fresh account with one client secret: each test owns its data. */
  newAccount(options?: { scopes?: ClientSecretScope[] }): Promise<TestAccount>;
  /** fetch against the service with JSON in and out. */
  request(method: string, path: string, options?: { headers?: Record<string, string>; body?: unknown; rawBody?: string }): Promise<{ status: number; body: any; headers: Headers }>;
  stop(): Promise<void>;
}

/**
 * The real service (container + Express on a real socket) in this test process, in either mode:
 * embedded with SQLite and chDB in a temporary directory, or distributed against the local stack
 * with its own PostgreSQL and ClickHouse databases, dropped at stop.
 */
export async function startApi(mode: Mode, env: Record<string, string> = {}): Promise<ApiHarness> {
  const cleanups: Array<() => Promise<void>> = [];
  let baseEnv: Record<string, string>;
  if (mode === 'embedded') {
    // chDB allows one data directory per process, so every embedded harness of a test file shares one.
    baseEnv = { DATA_DIR: embeddedDataDir() };
  } else {
    // Own databases, topics and consumer group: another suite's service never sees this one's data.
    const isolated = await isolatedDistributedEnv('api');
    cleanups.push(() => isolated.cleanup());
    baseEnv = { ...isolated.env };
  }
  // Every event kept whatever its age, as spawnService does (the suites use fixed dates).
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', EVENT_RETENTION_DAYS: '0', ...baseEnv, ...env });
  const { logger, lines } = capturingLogger('debug');
  const container = await createContainer(config, logger);
  let server: RunningServer;
  try {
    server = await startServer(container);
  } catch (err) {
    await container.stop();
    throw err;
  }

  return {
    mode,
    url: server.url,
    container,
    logLines: lines,
    async newAccount(options = {}) {
      const created = await container.services.accounts.createWithSecret({ name: `test-${Date.now()}`, scopes: options.scopes ?? ['read', 'write'] });
      return { accountId: created.accountId, secret: created.clientSecret, auth: { authorization: `Bearer ${created.clientSecret}` } };
    },
    async request(method, urlPath, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(`${server.url}${urlPath}`, { method, headers, ...(body !== undefined ? { body } : {}) });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: keep the text
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
    async stop() {
      await server.shutdown(5_000);
      for (const cleanup of cleanups) await cleanup();
    },
  };
}

let sharedEmbeddedDir: string | undefined;
function embeddedDataDir(): string {
  sharedEmbeddedDir ??= mkdtempSync(path.join(tmpdir(), 'eas-api-'));
  return sharedEmbeddedDir;
}

/** What apiWithAccount sets up: set by its beforeAll, for the tests of the block. */
export interface ApiWithAccount {
  api: ApiHarness;
  account: TestAccount;
}

/** For one describe block: the service in `mode` (with `env`) and an account of its own; stopped after the block. */
export function apiWithAccount(mode: Mode, env: Record<string, string> = {}): ApiWithAccount {
  const set = {} as ApiWithAccount;
  beforeAll(async () => {
    set.api = await startApi(mode, env);
    set.account = await set.api.newAccount();
  });
  afterAll(async () => {
    await set.api?.stop();
  });
  return set;
}

export interface ApiWithReceiver extends ApiWithAccount {
  receiver: Awaited<ReturnType<typeof startHttpReceiver>>;
}

/**
 * apiWithAccount, the service allowed to deliver to loopback, and an HTTP receiver for the alerts it
 * sends; all stopped after the block.
 */
export function apiWithReceiver(mode: Mode): ApiWithReceiver {
  const set = apiWithAccount(mode, { OUTBOUND_ALLOW_PRIVATE: 'true' }) as ApiWithReceiver;
  beforeAll(async () => {
    set.receiver = await startHttpReceiver();
  });
  afterAll(async () => {
    await set.receiver?.close();
  });
  return set;
}
