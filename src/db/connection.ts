import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as schema from './schema.ts';

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

const MIGRATIONS_FOLDER = resolve(dirname(fileURLToPath(import.meta.url)), '../../migrations');

/** Opens (creating if needed) the database file, or an in-memory one for ':memory:'. */
export function openDatabase(file: string): Db {
  if (file !== ':memory:') mkdirSync(dirname(resolve(file)), { recursive: true });
  const sqlite = new Database(file);
  // WAL lets readers run beside the single writer; NORMAL sync is durable across process crashes
  // (only an OS crash can lose the last commits), which is the trade every WAL deployment makes.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // CLI commands write to the same file while the server runs: wait for the lock instead of failing.
  sqlite.pragma('busy_timeout = 5000');
  return drizzle({ client: sqlite, schema, casing: 'snake_case' }) as Db;
}

export function migrateDatabase(db: Db): void {
  migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
}

export function closeDatabase(db: Db): void {
  if (db.$client.open) db.$client.close();
}

/** For /readyz: true when the database accepts a write right now. */
export function isWritable(db: Db): boolean {
  try {
    db.$client.exec('BEGIN IMMEDIATE; ROLLBACK;');
    return true;
  } catch {
    return false;
  }
}
