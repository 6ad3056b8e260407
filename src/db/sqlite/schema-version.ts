import { StartupError } from '../../startup-error.ts';
import { databaseFiles } from '../database-files.ts';
import { unknownMigrationsRefusal } from '../unknown-migrations.ts';
import type { Db } from './connection.ts';

/** drizzle's record of the migrations applied to a file: one row per migration, `created_at` being the journal's `when`. */
const MIGRATIONS_TABLE = '__drizzle_migrations';

/** Refuses a file migrated by a textrelay this build does not know of (see unknownMigrationsRefusal). */
export function refuseUnknownMigrations(db: Db, file: string): void {
  const client = db.$client;
  const hasTable = client.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(MIGRATIONS_TABLE);
  if (!hasTable) return;
  const applied = client.prepare(`select created_at as createdAt from "${MIGRATIONS_TABLE}"`).all() as { createdAt: number }[];
  const refusal = unknownMigrationsRefusal(
    file,
    applied.map((row) => Number(row.createdAt)),
    databaseFiles().migrationsFolder,
    'file',
  );
  if (refusal !== undefined) throw new StartupError(refusal);
}
