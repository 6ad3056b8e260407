import type { StorageTrouble } from '../storage-trouble-kind.ts';

/** SQLite's primary result code of `error` (SQLITE_IOERR for SQLITE_IOERR_WRITE), or undefined when it is not SQLite's. */
export function sqliteFamily(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return undefined;
  const [, family] = /^(SQLITE_[A-Z]+)/.exec(code) ?? [];
  return family;
}

/** The file's pages or header are not SQLite's: nothing read from it can be trusted until it is restored. */
export function isDamage(error: unknown): boolean {
  const family = sqliteFamily(error);
  return family === 'SQLITE_CORRUPT' || family === 'SQLITE_NOTADB';
}

/**
 * Result codes with which SQLite refuses work because of the storage, not the request: the disk is
 * full, the file became read-only, an I/O error, damaged pages, or another writer held the lock
 * past the busy timeout.
 */
const BUSY = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED']);
const UNWRITABLE = new Set(['SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_IOERR', 'SQLITE_CANTOPEN']);

/** What kind of storage trouble a SQLite error is, or undefined when it is not one (a bug, a constraint, ...). */
export function sqliteStorageTrouble(error: unknown): StorageTrouble | undefined {
  const family = sqliteFamily(error);
  if (family === undefined) return undefined;
  if (BUSY.has(family)) return 'busy';
  if (UNWRITABLE.has(family)) return 'unwritable';
  return isDamage(error) ? 'damaged' : undefined;
}
