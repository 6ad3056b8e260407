import { DrizzleQueryError } from 'drizzle-orm/errors';

/** The database's own error behind a failed query, which carries no statement text; any other error as it is. */
export function databaseCause(error: unknown): unknown {
  return error instanceof DrizzleQueryError && error.cause !== undefined ? error.cause : error;
}
