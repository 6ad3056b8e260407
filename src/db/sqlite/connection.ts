import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { StartupError } from '../../startup-error.ts';
import { databaseFiles } from '../database-files.ts';
import * as schema from '../schema.ts';

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/**
 * Whether another connection (a running server, a CLI command) has the file open: every WAL
 * connection holds a shared lock while open, so an exclusive lock is refused at once.
 */
export function isOpenElsewhere(file: string): boolean {
  const probe = new Database(file, { fileMustExist: true, timeout: 0, nativeBinding: databaseFiles().nativeBinding as string | undefined });
  try {
    probe.pragma('locking_mode = EXCLUSIVE');
    probe.exec('BEGIN EXCLUSIVE; ROLLBACK');
    return false;
  } catch {
    return true;
  } finally {
    probe.close();
  }
}

/** Opens (creating if needed) the database file, or an in-memory one for ':memory:'. */
export function openDatabase(file: string): Db {
  let sqlite: Database.Database;
  try {
    if (file !== ':memory:') mkdirSync(dirname(resolve(file)), { recursive: true });
    // The addon as loaded by the single executable (an object; better-sqlite3's types only know a path).
    sqlite = new Database(file, { nativeBinding: databaseFiles().nativeBinding as string | undefined });
    // WAL lets readers run beside the single writer; NORMAL sync is durable across process crashes
    // (only an OS crash can lose the last commits), which is the trade every WAL deployment makes.
    // The first statement reads the file's header: a file that is not a database fails here.
    sqlite.pragma('journal_mode = WAL');
  } catch (error) {
    throw new StartupError(cannotOpen(file, error));
  }
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // CLI commands write to the same file while the server runs: wait for the lock instead of failing.
  sqlite.pragma('busy_timeout = 5000');
  // SQLite's default page cache is 2 MB: on a database of a million messages (about 1.2 GB) nearly
  // every index page then comes from the OS through a read() call. 16 MB keeps the hot upper
  // levels of the indexes in the process.
  sqlite.pragma('cache_size = -16384');
  // The default checkpoint every 1,000 WAL pages (4 MB) copies the hot index pages back into the
  // file, with an fsync, every few dozen sends on a large database. Every 10,000 pages (40 MB) a
  // page rewritten by many commits is copied once. The cost: a WAL file of up to 40 MB beside the
  // database, read back after a crash.
  sqlite.pragma('wal_autocheckpoint = 10000');
  // Group commit runs each request in a savepoint, and SQLite keeps the original of every page a
  // savepoint changes in a sub-journal that spills to a temporary file past 64 KiB: a pwrite per
  // page. In memory it is a copy.
  sqlite.pragma('temp_store = MEMORY');
  return drizzle({ client: sqlite, schema, casing: 'snake_case' }) as Db;
}

/** Why `file` could not be opened, for a person: the errors of mkdir and SQLite name neither the file nor the cause. */
function cannotOpen(file: string, error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_NOTADB')
    return `${file} is not a database file (or its header is damaged); restore it from a backup or use another file`;
  if (code === 'SQLITE_CORRUPT') return `${file} is damaged; restore it from a backup or use another file`;
  const reason =
    code === 'ENOTDIR' || code === 'EEXIST'
      ? 'a part of its folder path is a file, not a folder'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'ENOENT' || code === undefined
          ? 'its folder does not exist and cannot be created (a dangling symbolic link?)'
          : code === 'SQLITE_CANTOPEN'
            ? 'SQLite cannot open or create it (a folder, or a folder without write permission?)'
            : (error as Error).message;
  return `cannot open database ${file}: ${reason}`;
}

export function migrateDatabase(db: Db): void {
  // A migration that builds an index sorts the whole table through temporary files: on a large
  // database those belong on disk, not in the memory the sub-journal setting above would give them.
  db.$client.pragma('temp_store = FILE');
  try {
    migrate(db, { migrationsFolder: databaseFiles().migrationsFolder });
  } finally {
    db.$client.pragma('temp_store = MEMORY');
  }
}

export function closeDatabase(db: Db): void {
  if (db.$client.open) db.$client.close();
}

/**
 * For /readyz: true when the database accepts a write right now. Taking the write lock is not
 * enough (a full disk or a read-only file still grants it), so the probe commits a write that
 * needs a fresh page and leaves nothing behind: a table created and dropped in one transaction.
 */
export function isWritable(db: Db): boolean {
  const client = db.$client;
  try {
    client.exec('BEGIN IMMEDIATE; CREATE TABLE textrelay_write_probe (x); DROP TABLE textrelay_write_probe; COMMIT;');
    return true;
  } catch {
    if (client.inTransaction) client.exec('ROLLBACK');
    return false;
  }
}
