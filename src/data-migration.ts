import type { Config } from './config.ts';
import { migratePostgres, openPostgres } from './db/postgres/connection.ts';
import { type CopyProgress, copySqliteToPostgres } from './db/postgres/copy-from-sqlite.ts';
import { closeDatabase, isOpenElsewhere } from './db/sqlite/connection.ts';
import { openCheckedDatabase } from './runtime.ts';

export type { CopyProgress };
/** Whether another process holds the SQLite file open (a running server), whose later writes a copy would miss. */
export { isOpenElsewhere };

/**
 * Copies the SQLite file at `from`, checked and migrated as `serve` would, into the empty PostgreSQL
 * database at `to`, migrated first; answers the database's name and the rows copied per table.
 */
export async function copySqliteFileToPostgres(from: string, to: string, config: Config, onProgress: (progress: CopyProgress) => void) {
  const { db: source } = openCheckedDatabase(from, true, config.TEXTRELAY_INTEGRITY_CHECK_MAX_MB);
  try {
    const target = await openPostgres(to, { poolSize: 2 });
    try {
      await migratePostgres(target.db);
      const { tables } = await copySqliteToPostgres(source, target.db, { onProgress });
      return { database: target.db.$client.options.database, tables };
    } finally {
      await target.close();
    }
  } finally {
    closeDatabase(source);
  }
}
