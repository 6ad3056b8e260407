import type { TestApp } from './app.ts';

/** Row counts of every table of the test database: what "nothing was written" is checked against. */
export function rowCounts(t: TestApp): Record<string, number> {
  const tables = t.db.$client
    .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '__drizzle%'")
    .all() as { name: string }[];
  return Object.fromEntries(
    tables.map(({ name }) => [name, (t.db.$client.prepare(`select count(*) c from "${name}"`).get() as { c: number }).c]),
  );
}
