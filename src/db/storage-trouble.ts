import { postgresStorageTrouble } from './postgres/postgres-codes.ts';
import { sqliteStorageTrouble } from './sqlite/sqlite-codes.ts';
import type { StorageTrouble } from './storage-trouble-kind.ts';

export type { StorageTrouble } from './storage-trouble-kind.ts';

/**
 * Whether an error is the storage refusing work (busy, unwritable, damaged) rather than the request:
 * the HTTP layer answers 503 and background work retries later instead of failing a message.
 */
export function storageTrouble(error: unknown): StorageTrouble | undefined {
  return sqliteStorageTrouble(error) ?? postgresStorageTrouble(error);
}
