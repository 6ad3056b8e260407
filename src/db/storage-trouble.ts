import { DrizzleQueryError } from 'drizzle-orm/errors';
import { postgresStorageTrouble } from './postgres/postgres-codes.ts';
import { sqliteStorageTrouble } from './sqlite/sqlite-codes.ts';
import type { StorageTrouble } from './storage-trouble-kind.ts';

export type { StorageTrouble } from './storage-trouble-kind.ts';

/**
 * Whether an error is the storage refusing work (busy, unavailable, unwritable, damaged) rather than
 * the request: the HTTP layer answers 503 and background work retries later instead of failing a message.
 */
export function storageTrouble(error: unknown): StorageTrouble | undefined {
  return sqliteStorageTrouble(error) ?? postgresStorageTrouble(error);
}

/**
 * The database's code and own words for a log line, without the statement: drizzle's message
 * carries the SQL and its parameters (a kilobyte, and other accounts' data).
 */
export function storageTroubleReason(error: unknown): { code: string | undefined; reason: string } {
  const raised = error instanceof DrizzleQueryError && error.cause !== undefined ? error.cause : error;
  const { code, message } = (raised ?? {}) as { code?: unknown; message?: unknown };
  return { code: typeof code === 'string' ? code : undefined, reason: typeof message === 'string' ? message : String(raised) };
}
