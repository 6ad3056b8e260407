import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { closeDatabase, type Db, isWritable, migrateDatabase, openDatabase } from './db/sqlite/connection.ts';
import { checkIntegrity, damagedFile, type IntegrityCheck } from './db/sqlite/integrity.ts';
import { refuseMissingColumns } from './db/sqlite/schema-shape.ts';
import { refuseUnknownMigrations } from './db/sqlite/schema-version.ts';
import { isDamage } from './db/sqlite/sqlite-codes.ts';
import { createSqliteStore } from './db/sqlite/store.ts';
import { createDeps } from './deps.ts';
import type { AppDeps } from './http/app-deps.ts';
import { createIngestSecrets, type IngestSecrets } from './http/ingest-auth.ts';
import { type Clock, systemClock } from './services/clock.ts';
import { createSandboxAtSend, type SandboxAtSend } from './transports/sandbox.ts';

export type OpenOptions = {
  /** Run SQLite's quick_check first (serve and migrate): the other commands start without reading the whole file. */
  checkIntegrity?: boolean;
  clock?: Clock;
};

/**
 * Opens the database for this build, or refuses it with a StartupError naming the file: written by
 * a newer textrelay, damaged (when checked), or lacking a column this build reads. Then migrates it.
 */
export function openCheckedDatabase(config: Config, checkIntegrityFirst: boolean): { db: Db; integrity: IntegrityCheck | 'not asked' } {
  const file = config.TEXTRELAY_DB;
  const db = openDatabase(file);
  try {
    refuseUnknownMigrations(db, file);
    const integrity = checkIntegrityFirst ? checkIntegrity(db, file, config.TEXTRELAY_INTEGRITY_CHECK_MAX_MB * 1024 * 1024) : 'not asked';
    migrateDatabase(db);
    refuseMissingColumns(db, file);
    return { db, integrity };
  } catch (error) {
    closeDatabase(db);
    if (isDamage(error)) throw damagedFile(file, (error as Error).message);
    throw error;
  }
}

/** Opens the checked database and wires the dependencies every command shares. */
export function openRuntime(
  config: Config,
  log: Logger,
  { checkIntegrity: checkIntegrityFirst = false, clock = systemClock }: OpenOptions = {},
): { db: Db; deps: AppDeps; ingestSecrets: IngestSecrets; sandboxAtSend: SandboxAtSend | undefined } {
  const { db, integrity } = openCheckedDatabase(config, checkIntegrityFirst);
  if (integrity === 'skipped') {
    log.warn(
      { db: config.TEXTRELAY_DB, limitMb: config.TEXTRELAY_INTEGRITY_CHECK_MAX_MB },
      'integrity check skipped: the database is larger than TEXTRELAY_INTEGRITY_CHECK_MAX_MB',
    );
  }
  const ingestSecrets = createIngestSecrets(config.TEXTRELAY_INGEST_SECRET);
  const watched = createSqliteStore(db, config.TEXTRELAY_DB);
  const sandboxAtSend =
    config.TEXTRELAY_TRANSPORT === 'sandbox' ? createSandboxAtSend({ stepMs: config.TEXTRELAY_SANDBOX_STEP_MS }) : undefined;
  const deps = createDeps(config, {
    store: watched.store,
    isReady: () => !watched.damaged() && isWritable(db),
    clock,
    log,
    ingestSecrets: ingestSecrets.list,
    transportAtSend: sandboxAtSend,
  });
  return { db, deps, ingestSecrets, sandboxAtSend };
}

export type Runtime = ReturnType<typeof openRuntime>;
