import type { Logger } from 'pino';
import { type Config, databaseOf } from './config.ts';
import { describePostgres, migratePostgres, openPostgres, type PgPool } from './db/postgres/connection.ts';
import { watchPostgresHealth } from './db/postgres/health.ts';
import { openPostgresSharedLimits, type PostgresSharedLimits } from './db/postgres/shared-limits.ts';
import { createPostgresStore } from './db/postgres/store.ts';
import { closeDatabase, type Db, isWritable, migrateDatabase, openDatabase } from './db/sqlite/connection.ts';
import { checkIntegrity, damagedFile, type IntegrityCheck } from './db/sqlite/integrity.ts';
import { refuseMissingColumns } from './db/sqlite/schema-shape.ts';
import { refuseUnknownMigrations } from './db/sqlite/schema-version.ts';
import { isDamage } from './db/sqlite/sqlite-codes.ts';
import { createSqliteStore } from './db/sqlite/store.ts';
import type { Store } from './db/store.ts';
import { createDeps } from './deps.ts';
import type { AppDeps } from './http/app-deps.ts';
import { createIngestSecrets } from './http/ingest-auth.ts';
import { type Clock, systemClock } from './services/clock.ts';
import { createConfiguredCarriers } from './transports/carriers/registry.ts';
import { createSandboxAtSend, type SandboxAtSend } from './transports/sandbox.ts';

export type OpenOptions = {
  /** Run SQLite's quick_check first (serve and migrate): the other commands start without reading the whole file. */
  checkIntegrity?: boolean;
  clock?: Clock;
  /** A database the caller opened (tests), instead of the configured one. */
  opened?: OpenedStore;
};

/** The configured database, migrated and behind its store: the one place that knows which backend runs. */
export type OpenedStore = {
  store: Store;
  /** True while the database accepts writes (the readiness probe). */
  isReady: () => boolean;
  /** The file, or the PostgreSQL database and server, for log lines and messages (never a password). */
  name: string;
  close(): Promise<void>;
  /** PostgreSQL, which other instances may share: its pool (for LISTEN/NOTIFY) and where the limits count. */
  shared?: { pool: PgPool; limits: PostgresSharedLimits };
};

/**
 * Opens the SQLite file for this build, or refuses it with a StartupError naming the file: written by
 * a newer textrelay, damaged (when checked), or lacking a column this build reads. Then migrates it.
 */
export function openCheckedDatabase(
  file: string,
  checkIntegrityFirst: boolean,
  integrityLimitMb: number,
): { db: Db; integrity: IntegrityCheck | 'not asked' } {
  const db = openDatabase(file);
  try {
    refuseUnknownMigrations(db, file);
    const integrity = checkIntegrityFirst ? checkIntegrity(db, file, integrityLimitMb * 1024 * 1024) : 'not asked';
    migrateDatabase(db);
    refuseMissingColumns(db, file);
    return { db, integrity };
  } catch (error) {
    closeDatabase(db);
    if (isDamage(error)) throw damagedFile(file, (error as Error).message);
    throw error;
  }
}

/** The SQLite file as an OpenedStore, with its connection (the fault tests reach it). */
export function openSqliteStore(file: string, config: Config, log: Logger, checkIntegrityFirst: boolean): OpenedStore & { db: Db } {
  const { db, integrity } = openCheckedDatabase(file, checkIntegrityFirst, config.TEXTRELAY_INTEGRITY_CHECK_MAX_MB);
  if (integrity === 'skipped') {
    log.warn(
      { db: file, limitMb: config.TEXTRELAY_INTEGRITY_CHECK_MAX_MB },
      'integrity check skipped: the database is larger than TEXTRELAY_INTEGRITY_CHECK_MAX_MB',
    );
  }
  const watched = createSqliteStore(db, file);
  return {
    db,
    store: watched.store,
    isReady: () => !watched.damaged() && isWritable(db),
    name: file,
    close: async () => closeDatabase(db),
  };
}

const SERVING_CONNECT_TIMEOUT_SECONDS = 5;

/** Brings the PostgreSQL schema up to this build's on a connection of its own, free of the pool's statement timeout. */
async function migratePostgresAt(url: string): Promise<string> {
  const migrating = await openPostgres(url, { poolSize: 2 });
  try {
    await migratePostgres(migrating.db);
    return describePostgres(migrating.db);
  } finally {
    await migrating.close();
  }
}

async function openPostgresStore(url: string, config: Config, log: Logger): Promise<OpenedStore> {
  const name = await migratePostgresAt(url);
  const { db, close } = await openPostgres(url, {
    poolSize: config.TEXTRELAY_DATABASE_POOL_SIZE,
    // A request waits at most this long for a connection to a server that does not answer.
    connectTimeoutSeconds: SERVING_CONNECT_TIMEOUT_SECONDS,
    statementTimeoutMs: config.TEXTRELAY_DATABASE_STATEMENT_TIMEOUT_MS,
  });
  const limits = await openPostgresSharedLimits(url);
  const health = watchPostgresHealth(db.$client, log);
  return {
    store: createPostgresStore(db),
    isReady: health.isHealthy,
    name,
    shared: { pool: db, limits },
    close: async () => {
      health.stop();
      await Promise.all([limits.close(), close()]);
    },
  };
}

/** Opens and migrates the configured database: PostgreSQL for a postgres:// URL, else the SQLite file. */
export function openConfiguredStore(config: Config, log: Logger, checkIntegrityFirst = false): Promise<OpenedStore> {
  const database = databaseOf(config);
  return database.backend === 'postgres'
    ? openPostgresStore(database.url, config, log)
    : Promise.resolve(openSqliteStore(database.file, config, log, checkIntegrityFirst));
}

/** `textrelay migrate`: brings the configured database to this build's schema; answers its name. */
export async function migrateConfiguredDatabase(config: Config): Promise<string> {
  const database = databaseOf(config);
  if (database.backend === 'postgres') return migratePostgresAt(database.url);
  closeDatabase(openCheckedDatabase(database.file, true, config.TEXTRELAY_INTEGRITY_CHECK_MAX_MB).db);
  return database.file;
}

/** Opens the configured database and wires the dependencies every command shares. */
export async function openRuntime(
  config: Config,
  log: Logger,
  { checkIntegrity: checkIntegrityFirst = false, clock = systemClock, opened: given }: OpenOptions = {},
) {
  const opened = given ?? (await openConfiguredStore(config, log, checkIntegrityFirst));
  const ingestSecrets = createIngestSecrets(config.TEXTRELAY_INGEST_SECRET);
  const sandboxAtSend: SandboxAtSend | undefined =
    config.TEXTRELAY_TRANSPORT === 'sandbox' ? createSandboxAtSend({ stepMs: config.TEXTRELAY_SANDBOX_STEP_MS }) : undefined;
  const deps: AppDeps = createDeps(config, {
    store: opened.store,
    isReady: opened.isReady,
    clock,
    log,
    ingestSecrets: ingestSecrets.list,
    providerSecrets: ingestSecrets.providers,
    transportAtSend: sandboxAtSend,
    sharedLimits: opened.shared?.limits,
  });
  const carriers = createConfiguredCarriers(config, deps);
  return {
    deps,
    ingestSecrets,
    sandboxAtSend,
    carriers,
    sharedDatabase: opened.shared?.pool,
    databaseName: opened.name,
    close: opened.close,
  };
}

export type Runtime = Awaited<ReturnType<typeof openRuntime>>;
