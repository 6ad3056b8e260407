import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { accounts } from '../../../src/db/postgres/schema.ts';
import { emptyPostgresDatabase, freshPostgresDatabase } from '../../helpers/postgres-database.ts';

describe('the PostgreSQL test databases', () => {
  it('gives each test a migrated database of its own, empty and quick to make', async () => {
    const first = await freshPostgresDatabase();
    const started = performance.now();
    const second = await freshPostgresDatabase();
    const copyMs = performance.now() - started;
    try {
      await first.db
        .insert(accounts)
        .values({ id: 'a', email: 'a@example.com', plan: 'blue', apiKeyId: 'k', apiSecretHash: 'h', createdAt: 1 });
      expect(await first.db.$count(accounts)).toBe(1);
      expect(await second.db.$count(accounts)).toBe(0);
      expect(second.url).not.toBe(first.url);
      expect(copyMs).toBeLessThan(2_000);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('gives an empty database without any table when asked', async () => {
    const empty = await emptyPostgresDatabase();
    try {
      const tables = await empty.db.execute(sql`select table_name from information_schema.tables where table_schema = 'public'`);
      expect(tables).toHaveLength(0);
    } finally {
      await empty.close();
    }
  });
});
