import type { TestApp } from './app.ts';

/**
 * Rows inserted, updated or deleted through the test database's connection since it opened
 * (SQLite's total_changes()). Equal before and after a request means it wrote nothing at all:
 * stricter than comparing row counts (an UPDATE shows), and one query instead of one per table,
 * which matters to tests that check it around thousands of generated requests.
 */
export function writeCounter(t: TestApp): () => number {
  const statement = t.db.$client.prepare('select total_changes() as n');
  return () => (statement.get() as { n: number }).n;
}
