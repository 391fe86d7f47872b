/**
 * The metadata port over MikroORM. Embedded mode keeps the database in a SQLite file (libsql driver,
 * which ships prebuilt binaries), distributed mode in PostgreSQL. Both use the same entities,
 * migrations and repositories; only the driver and the migration lock differ.
 *
 * The factories are synchronous and open no connection: the first query (normally migrate() at
 * start-up, or ping()) connects.
 */

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'libsql';
import type { MikroORM, Options } from '@mikro-orm/core';
import type { AbstractSqlDriver, SqlEntityManager } from '@mikro-orm/knex';
import { MikroORM as LibSqlMikroORM } from '@mikro-orm/libsql';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM as PostgreSqlMikroORM } from '@mikro-orm/postgresql';
import type { MetadataRepositories, MetadataStore } from '../../ports/metadata.js';
import { metadataEntities } from './entities/metadata-entities.js';
import { metadataMigrations } from './migrations/metadata-migrations.js';
import { OrmAccountRepository } from './repositories/account-repository.js';
import { OrmAppRepository } from './repositories/app-repository.js';
import { OrmClientSecretRepository } from './repositories/client-secret-repository.js';
import { OrmDeliveryRepository } from './repositories/delivery-repository.js';
import { OrmDestinationRepository } from './repositories/destination-repository.js';
import { OrmEventSchemaRepository } from './repositories/event-schema-repository.js';
import { OrmNotificationRuleRepository } from './repositories/notification-rule-repository.js';
import { OrmSettingRepository } from './repositories/service-setting-repository.js';
import { translateDuplicates, type EntityManagerSource } from './unit-of-work.js';
import { withDeadline } from '../../lib/deadline.js';

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
  const migrate = async (): Promise<void> => {
    await orm.getMigrator().up();
  };
  return wrap(orm, options, migrate, sqliteWriteMark(options.path));
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
  // Every process may run migrate() at start-up. The transaction-scoped advisory lock makes the
  // others wait until the first has committed; they then find nothing pending. The Migrator runs
  // inside that transaction, so the lock covers reading and writing the migrations table. It
  // creates that table itself on a second pooled connection, hence poolMax >= 2.
  const migrate = async (): Promise<void> => {
    const connection = orm.em.getConnection();
    await connection.transactional(async (trx) => {
      await connection.execute(`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`, [], 'all', trx);
      await orm.getMigrator().up({ transaction: trx });
    });
  };
  return wrap(orm, options, migrate, NO_WRITE_MARK);
}

/** MetadataStore.writeMark, and what to close with the store. */
interface WriteMark {
  readonly read: (() => string) | null;
  readonly close: () => void;
}

/** PostgreSQL (where Redis carries every change to every process) and a private in-memory database. */
const NO_WRITE_MARK: WriteMark = { read: null, close: () => undefined };

/**
 * SQLite's `pragma data_version`, read on a connection of its own: it moves whenever any other
 * connection committed a write, whether this process's ORM or another process such as the operator
 * CLI. About 3 µs a read, so the caches may ask it on every request.
 */
function sqliteWriteMark(path: string): WriteMark {
  if (path === ':memory:') return NO_WRITE_MARK;
  let statement: Database.Statement<[]> | undefined;
  let db: Database.Database | undefined;
  return {
    read: () => {
      db ??= new Database(path);
      statement ??= db.prepare('pragma data_version').raw();
      return String((statement.get() as [number])[0]);
    },
    close: () => db?.close(),
  };
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

/** The ORM behind each store this module made: appliedMigrations reads through it. */
const ormOf = new WeakMap<MetadataStore, MikroORM<AbstractSqlDriver, SqlEntityManager>>();

/** Outside a transaction, every repository call is a unit of work of its own, on a fresh fork. */
function wrap<D extends AbstractSqlDriver>(orm: MikroORM<D, SqlEntityManager<D>>, options: MetadataStoreOptions, migrate: () => Promise<void>, writeMark: WriteMark): MetadataStore {
  const pingTimeoutMs = options.pingTimeoutMs ?? DEFAULT_PING_TIMEOUT_MS;
  const fork: EntityManagerSource = () => orm.em.fork();
  const store: MetadataStore = {
    ...repositories(fork),
    deliveries: new OrmDeliveryRepository(fork),
    settings: new OrmSettingRepository(fork),
    // Every repository write flushes at once, so before the commit the unit of work is cleared: the
    // commit writes nothing a repository did not ask for.
    transaction: <T>(work: (tx: MetadataRepositories) => Promise<T>) =>
      translateDuplicates(() =>
        orm.em.fork().transactional(async (tx) => {
          const result = await work(repositories(() => tx));
          tx.clear();
          return result;
        }),
      ),
    migrate,
    ping: () =>
      withDeadline(
        orm.em.getConnection().execute('select 1').then(() => undefined),
        pingTimeoutMs,
        `metadata database did not answer within ${pingTimeoutMs} ms`,
      ),
    writeMark: writeMark.read,
    close: async () => {
      writeMark.close();
      await orm.close(true);
    },
  };
  ormOf.set(store, orm);
  return store;
}

/** The repositories over one source of EntityManagers: a fresh fork per call, or one transaction's. */
function repositories(em: EntityManagerSource): MetadataRepositories {
  return {
    accounts: new OrmAccountRepository(em),
    apps: new OrmAppRepository(em),
    clientSecrets: new OrmClientSecretRepository(em),
    schemas: new OrmEventSchemaRepository(em),
    rules: new OrmNotificationRuleRepository(em),
    destinations: new OrmDestinationRepository(em),
  };
}

/**
 * The migrations recorded in the database, in the order they ran: for the contract test, which checks
 * that each ran exactly once. Only a store this module made can answer.
 */
export async function appliedMigrations(store: MetadataStore): Promise<Array<{ id: number; name: string }>> {
  const orm = ormOf.get(store);
  if (!orm) throw new TypeError('not a store made by createSqliteMetadataStore or createPostgresMetadataStore');
  const rows = await orm.em.getConnection().execute<Array<{ id: number | string; name: string }>>(`select id, name from ${MIGRATIONS_TABLE} order by id`);
  return rows.map((r) => ({ id: Number(r.id), name: r.name }));
}

function discard(): void {}
