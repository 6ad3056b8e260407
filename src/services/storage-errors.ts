/**
 * The result codes with which the store refuses work because of the storage, not the request: the
 * disk is full, the file became read-only, an I/O error, or another writer held the lock past the
 * busy timeout. They pass once the storage can write again, so the HTTP layer answers 503 and
 * background work retries later instead of failing a message. better-sqlite3 puts SQLite's extended
 * code on `code` (SQLITE_IOERR_WRITE, SQLITE_READONLY_DBMOVED, ...), hence the prefixes.
 */
const UNAVAILABLE = ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_IOERR', 'SQLITE_CANTOPEN', 'SQLITE_CORRUPT', 'SQLITE_NOTADB'] as const;

/** busy and unwritable pass on their own; damaged (corrupt pages) lasts until the file is restored. */
export type StorageTrouble = 'busy' | 'unwritable' | 'damaged';

/** What kind of storage trouble `error` is, or undefined when it is not one (a bug, a constraint, ...). */
export function storageTrouble(error: unknown): StorageTrouble | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  const family = UNAVAILABLE.find((prefix) => code === prefix || code.startsWith(`${prefix}_`));
  if (family === undefined) return undefined;
  if (family === 'SQLITE_BUSY' || family === 'SQLITE_LOCKED') return 'busy';
  return family === 'SQLITE_CORRUPT' || family === 'SQLITE_NOTADB' ? 'damaged' : 'unwritable';
}
