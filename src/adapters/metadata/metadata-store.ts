import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { MikroORM, Options } from '@mikro-orm/core';
import type { AbstractSqlDriver, SqlEntityManager } from '@mikro-orm/knex';
import { MikroORM as LibSqlMikroORM } from '@mikro-orm/libsql';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM as PostgreSqlMikroORM } from '@mikro-orm/postgresql';
import { metadataEntities } from './entities/metadata-entities.js';
import { metadataMigrations } from './migrations/metadata-migrations.js';
import { withDeadline } from '../../shared/deadline.js';

/**
 * The relational store of accounts, client secrets, apps and schemas. Embedded mode keeps it in a
 * SQLite file (libsql driver, which ships prebuilt binaries), distributed mode in PostgreSQL. Both
 * use the same entities and the same migrations; only the driver and the migration lock differ.
 * test/contract/metadata.contract.test.ts runs one suite against both.
 *
 * The factories are synchronous and open no connection: the first query (normally migrate() at
 * start-up, or ping()) connects. A database that is down therefore shows up in readiness, not as a
 * constructor that throws.
 */
export interface MetadataStore {
  readonly orm: MikroORM;
  /**
   * A fresh EntityManager (own identity map and unit of work) per unit of work, e.g. per request. Both
   * drivers are SQL drivers, so it can also build queries the ORM's own methods cannot express.
   */
  em(): SqlEntityManager;
  /** Applies pending migrations; a no-op when there are none. Safe to call from several processes on PostgreSQL. */
  migrate(): Promise<void>;
  /** Resolves when the database answers `select 1`; rejects within `pingTimeoutMs` otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface MetadataStoreOptions {
  /** Receives the ORM's log lines (migrations applied, and queries when `debug` is set). Default: discarded. */
  logger?: (message: string) => void;
  /** Log every query through `logger`. Default false. */
  debug?: boolean;
  /** How long `ping()` waits before it fails. Default 2000 ms, short enough for a readiness probe. */
  pingTimeoutMs?: number;
}

export interface SqliteMetadataStoreOptions extends MetadataStoreOptions {
  /** Database file (its directory is created if missing), or ':memory:' for a private in-memory database. */
  path: string;
}

export interface PostgresMetadataStoreOptions extends MetadataStoreOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  /** Most connections this process opens. Default 10; at least 2, because migrate() holds one for its lock. */
  poolMax?: number;
}

/** Name of the table in which the Migrator records applied migrations. */
export const MIGRATIONS_TABLE = 'mikro_orm_migrations';

const DEFAULT_PING_TIMEOUT_MS = 2000;

/**
 * Arbitrary but fixed key of the PostgreSQL advisory lock that serialises migrations across
 * processes ("eas" + "mig" in ASCII). It only has to differ from other advisory locks taken on the
 * same database.
 */
const MIGRATION_LOCK_KEY = 0x656173_6d6967;

/** A SQLite connection as the libsql driver hands it to the pool's afterCreate hook. */
interface SqliteConnection {
  readonly memory: boolean;
  exec(sql: string): void;
}

export function createSqliteMetadataStore(options: SqliteMetadataStoreOptions): MetadataStore {
  // MikroORM creates the directory only when it connects eagerly; initSync connects lazily.
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
  const orm = LibSqlMikroORM.initSync({
    ...sharedOptions(options),
    dbName: options.path,
    pool: {
      // The libsql dialect treats a file connection older than 10 s as stale and opens a new one,
      // but MikroORM turns `foreign_keys` on only for the first connection. Today's libsql build
      // happens to default it on; setting it per connection keeps ON DELETE CASCADE from
      // depending on a compile-time default.
      afterCreate(connection: SqliteConnection, done: (error: Error | null, connection: SqliteConnection) => void) {
        try {
          connection.exec('pragma foreign_keys = on');
          // Another process (the CLI) may hold the write lock briefly; wait for it instead of failing.
          connection.exec('pragma busy_timeout = 5000');
          // Readers do not block the writer, nor the writer the readers.
          if (!connection.memory) connection.exec('pragma journal_mode = wal');
          done(null, connection);
        } catch (error) {
          done(error as Error, connection);
        }
      },
    },
  });
  // SQLite serialises writers itself and embedded mode runs one process, so no lock of our own.
  return wrap(orm, options, async () => {
    await orm.getMigrator().up();
  });
}

export function createPostgresMetadataStore(options: PostgresMetadataStoreOptions): MetadataStore {
  const poolMax = options.poolMax ?? 10;
  if (poolMax < 2) throw new Error('poolMax must be at least 2: migrate() holds one connection for its lock');
  const orm = PostgreSqlMikroORM.initSync({
    ...sharedOptions(options),
    clientUrl: options.url,
    // min 0: idle connections are closed rather than held open by every process forever.
    pool: { min: 0, max: poolMax },
    driverOptions: {
      connection: {
        // MikroORM keeps only host, port, user, password and database of the URL; handing pg the
        // whole string too keeps parameters such as ?sslmode=require working.
        connectionString: options.url,
        // pg waits forever for a connection by default; a silent host must surface as an error.
        connectionTimeoutMillis: 5000,
        application_name: 'event-alerting-service',
      },
    },
  });
  return wrap(orm, options, async () => {
    // Every process may run migrate() at start-up. The transaction-scoped advisory lock makes the
    // others wait until the first has committed; they then find nothing pending. The Migrator runs
    // inside that transaction, so the lock covers reading and writing the migrations table. It
    // creates that table itself on a second pooled connection, hence poolMax >= 2.
    const connection = orm.em.getConnection();
    await connection.transactional(async (trx) => {
      await connection.execute(`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`, [], 'all', trx);
      await orm.getMigrator().up({ transaction: trx });
    });
  });
}

/** Settings both drivers share: explicit entity and migration lists, no file access, quiet logging. */
function sharedOptions(options: MetadataStoreOptions) {
  return {
    entities: [...metadataEntities],
    discovery: { requireEntitiesArray: true },
    // Nothing is cached to a temp folder in the working directory.
    metadataCache: { enabled: false },
    extensions: [Migrator],
    migrations: {
      migrationsList: [...metadataMigrations],
      tableName: MIGRATIONS_TABLE,
      // The snapshot is for generating migrations from entity diffs; we write them by hand, and
      // it would otherwise be written into ./migrations of the working directory.
      snapshot: false,
      transactional: true,
      allOrNothing: true,
    },
    // The database must exist; creating it needs rights the service should not have.
    ensureDatabase: false,
    debug: options.debug ?? false,
    colors: false,
    logger: options.logger ?? discard,
  } satisfies Options;
}

function wrap<D extends AbstractSqlDriver>(orm: MikroORM<D, SqlEntityManager<D>>, options: MetadataStoreOptions, migrate: () => Promise<void>): MetadataStore {
  const pingTimeoutMs = options.pingTimeoutMs ?? DEFAULT_PING_TIMEOUT_MS;
  return {
    orm,
    em: () => orm.em.fork(),
    migrate,
    ping: () =>
      withDeadline(
        orm.em.getConnection().execute('select 1').then(() => undefined),
        pingTimeoutMs,
        `metadata database did not answer within ${pingTimeoutMs} ms`,
      ),
    close: () => orm.close(true),
  };
}


function discard(): void {}
