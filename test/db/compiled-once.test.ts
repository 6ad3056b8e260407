import { describe, expect, it } from 'vitest';
import { migrateDatabase, openDatabase } from '../../src/db/sqlite/connection.ts';
import type { MessageListFilter } from '../../src/db/sqlite/queries/messages.ts';
import { createSqliteStore } from '../../src/db/sqlite/store.ts';

/** Columns that a partial index's WHERE compares with `=`: a bare parameter compared with one makes SQLite plan by its value. */
function partialIndexColumns(sqlOfIndexes: string[]): string[] {
  const columns = sqlOfIndexes.flatMap((sql) =>
    [...sql.replace(/^.*\bwhere\b/is, '').matchAll(/"?(\w+)"?\s*=/g)].map((match) => match[1]!),
  );
  return [...new Set(columns)];
}

describe('prepared statements', () => {
  it('are compiled once: none binds a LIMIT, or a partial index column, as a bare parameter', async () => {
    const db = openDatabase(':memory:');
    migrateDatabase(db);
    const prepared: string[] = [];
    const prepare = db.$client.prepare.bind(db.$client);
    db.$client.prepare = ((source: string) => {
      prepared.push(source);
      return prepare(source);
    }) as typeof prepare;

    const store = createSqliteStore(db, ':memory:').store;
    // Listings are prepared per filter shape, on first use.
    const filters: MessageListFilter[] = [
      {},
      { contactId: 'c' },
      { groupId: 'g' },
      { status: 'SENT' },
      { isOutbound: false },
      { sentSince: 0 },
      { number: '+12125550100' },
      { number: '+12125550100', status: 'READ', isOutbound: true, sentSince: 0 },
    ];
    for (const filter of filters) await store.messages.list('acc', filter, 50, 0);

    const indexes = db.$client
      .prepare(`select sql from sqlite_master where type = 'index' and sql like '% where %'`)
      .pluck()
      .all() as string[];
    const columns = partialIndexColumns(indexes);
    expect(columns).toEqual(expect.arrayContaining(['is_outbound', 'status', 'applied', 'state']));
    const bare = '[?@:$]';
    const replannedEachTime = prepared.filter((sql) => {
      // Comparisons only: an UPDATE's SET comes before its WHERE.
      const conditions = sql.replace(/^[\s\S]*?\bwhere\b/i, '');
      return (
        new RegExp(`\\blimit\\s+${bare}`, 'i').test(sql) ||
        columns.some((column) => new RegExp(`"?\\b${column}"?\\s*=\\s*${bare}`).test(conditions))
      );
    });
    expect(prepared.length).toBeGreaterThan(50);
    expect(replannedEachTime).toEqual([]);
  });
});
