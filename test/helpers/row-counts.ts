import { sql } from 'drizzle-orm';
import type { TestApp } from './app.ts';

/** Row counts of every table of the test database: what "nothing was written" is checked against. */
export async function rowCounts(t: TestApp): Promise<Record<string, number>> {
  if (t.postgres !== undefined) {
    const db = await t.postgres;
    const tables = await db.execute<{ name: string }>(sql`select tablename as name from pg_tables where schemaname = 'public'`);
    const counts = tables.map(({ name }) => `select '${name}' as name, count(*)::int as c from "${name}"`);
    const rows = await db.execute<{ name: string; c: number }>(sql.raw(counts.join(' union all ')));
    return Object.fromEntries(rows.map(({ name, c }) => [name, c]));
  }
  const tables = t.db.$client
    .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '__drizzle%'")
    .all() as { name: string }[];
  return Object.fromEntries(
    tables.map(({ name }) => [name, (t.db.$client.prepare(`select count(*) c from "${name}"`).get() as { c: number }).c]),
  );
}
