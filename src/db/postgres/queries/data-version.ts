import type { PgDb } from '../db.ts';

/**
 * SQLite's `pragma data_version` has no counterpart to ask for: every writer on PostgreSQL (each
 * instance, each CLI command) tells the others of its changes over LISTEN/NOTIFY instead.
 */
export function dataVersionQueries(_db: PgDb) {
  return {
    async current(): Promise<number> {
      return 0;
    },
  };
}
