/**
 * EXPLAIN QUERY PLAN on the very SQL the app runs: statements are captured from the database
 * client as they are prepared, with the values they ran with.
 */
import { expect } from 'vitest';
import type { Db } from '../../src/db/sqlite/connection.ts';

export type Captured = { sql: string; params: unknown[]; ran: boolean };
export type PlanRow = { id: number; parent: number; notused: number; detail: string };

/**
 * Records every statement prepared on the client while `work` runs, and the values each runs with
 * (also later, for statements prepared once and kept, such as a Store's).
 */
export async function captureStatements(db: Db, work: () => unknown): Promise<Captured[]> {
  const client = db.$client;
  const original = client.prepare;
  const captured: Captured[] = [];
  client.prepare = function patchedPrepare(this: typeof client, source: string) {
    const statement = original.call(this, source);
    const entry: Captured = { sql: source, params: [], ran: false };
    captured.push(entry);
    for (const method of ['all', 'get', 'run', 'iterate'] as const) {
      const run = (statement as any)[method].bind(statement);
      (statement as any)[method] = (...args: unknown[]) => {
        entry.params = args;
        entry.ran = true;
        return run(...args);
      };
    }
    return statement;
  } as typeof client.prepare;
  try {
    await work();
  } finally {
    client.prepare = original;
  }
  return captured;
}

export function explain(db: Db, statement: Captured): PlanRow[] {
  return db.$client.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`).all(...(statement.params as never[])) as PlanRow[];
}

/** Every plan row that touches `table` must search an index: no table scan, no whole-index walk; no temporary sort when told so. */
export function expectIndexed(
  plan: PlanRow[],
  table: string,
  context: string,
  options: {
    noTempSort: boolean;
    /** Partial indexes a scan may walk whole: they hold only the rows the query wants. */
    partial?: readonly string[];
  },
): void {
  const report = `${context}\n${plan.map((row) => `${row.id}/${row.parent} ${row.detail}`).join('\n')}`;
  const touching = plan.filter((row) => new RegExp(`\\b${table}\\b`).test(row.detail));
  expect(touching.length, `no plan row reads ${table}: ${report}`).toBeGreaterThan(0);
  for (const row of touching) {
    expect(row.detail, `full scan of ${table}: ${report}`).toMatch(/USING (INDEX|COVERING INDEX|INTEGER PRIMARY KEY|PRIMARY KEY)/);
    // "SCAN t USING INDEX i" walks the whole index (every account's rows): still a full scan.
    const partialScan = (options.partial ?? []).some((index) => row.detail.endsWith(` INDEX ${index}`));
    if (!partialScan) expect(row.detail, `whole-index scan of ${table}: ${report}`).not.toMatch(/^SCAN /);
  }
  if (options.noTempSort) {
    expect(
      plan.map((row) => row.detail),
      `sort in a temporary B-tree: ${report}`,
    ).not.toContain('USE TEMP B-TREE FOR ORDER BY');
  }
}

/** Average rows per distinct value of each indexed column, as in one account of a million messages. */
const MILLION_ROW_SPREAD: Record<string, number> = {
  account_id: 1_000_000,
  number: 500,
  contact_id: 500,
  group_id: 5_000,
  status: 200_000,
};

/**
 * Gives the planner the statistics of one account holding a million messages (sqlite_stat1 rows
 * written by hand, then reloaded): plans chosen for a handful of rows must still hold there.
 */
export function pretendMillionMessages(db: Db): void {
  const client = db.$client;
  client.exec('ANALYZE');
  client.prepare(`delete from sqlite_stat1 where tbl = 'messages'`).run();
  const indexes = client.prepare(`select name from pragma_index_list('messages')`).all() as { name: string }[];
  for (const { name } of indexes) {
    const columns = client.prepare('select name from pragma_index_info(?) order by seqno').all(name) as { name: string }[];
    const stat = [1_000_000, ...columns.map((column) => MILLION_ROW_SPREAD[column.name] ?? 1)].join(' ');
    client.prepare(`insert into sqlite_stat1 (tbl, idx, stat) values ('messages', ?, ?)`).run(name, stat);
  }
  client.exec('ANALYZE sqlite_schema');
}
