import type { SQL } from 'drizzle-orm';
import type { PgDb } from '../db.ts';

/**
 * The rows of a raw SQL query as plain objects in a plain array (postgres.js answers a RowList
 * carrying the statement's metadata). The caller names the row type: raw SQL has no schema.
 */
export async function rawRows<Row>(db: PgDb, query: SQL): Promise<Row[]> {
  return Array.from(await db.execute(query)) as Row[];
}
