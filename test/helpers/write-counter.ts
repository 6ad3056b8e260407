import { sql } from 'drizzle-orm';
import type { PgDb } from '../../src/db/postgres/db.ts';
import type { TestApp } from './app.ts';

/**
 * Rows inserted, updated or deleted through the test database's connection since it opened
 * (SQLite's total_changes()). Equal before and after a request means it wrote nothing at all:
 * stricter than comparing row counts (an UPDATE shows), and one query instead of one per table,
 * which matters to tests that check it around thousands of generated requests.
 */
export function writeCounter(t: TestApp): () => Promise<number> {
  if (t.postgres !== undefined) return rowVersionSum(t.postgres);
  const statement = t.db.$client.prepare('select total_changes() as n');
  return async () => (statement.get() as { n: number }).n;
}

/**
 * PostgreSQL's stand-in, over every table: the sum of each row's xmin (the transaction that wrote
 * this version of it) plus one. An insert or update adds a version newer than any, a delete takes
 * one away: every write changes the sum.
 */
function rowVersionSum(pool: Promise<PgDb>): () => Promise<number> {
  const query = (async () => {
    const db = await pool;
    const tables = await db.execute<{ name: string }>(sql`select tablename as name from pg_tables where schemaname = 'public'`);
    const sums = tables.map(({ name }) => `select coalesce(sum(xmin::text::bigint + 1), 0) as n from "${name}"`);
    return { db, statement: sql.raw(`select sum(n)::text as n from (${sums.join(' union all ')}) as per_table`) };
  })();
  return async () => {
    const { db, statement } = await query;
    const [row] = await db.execute<{ n: string }>(statement);
    return Number(row!.n);
  };
}
