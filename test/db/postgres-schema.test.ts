import { fileURLToPath } from 'node:url';
import { getTableColumns, getTableName, type Table } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { getTableConfig as pgTableConfig } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteTableConfig } from 'drizzle-orm/sqlite-core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as postgresSchema from '../../src/db/postgres/schema.ts';
import * as sqliteSchema from '../../src/db/schema.ts';
import { type RunningPostgres, startPostgres } from '../helpers/postgres.ts';

/**
 * The PostgreSQL schema is the SQLite one's twin: same tables, columns, keys and indexes, so the
 * store above them hands up the same rows whichever runs. A column added to one and not the other
 * fails here, and the PostgreSQL migrations must build that schema on a real server.
 */

const isTable = (value: unknown): value is Table =>
  typeof value === 'object' && value !== null && getTableName(value as Table) !== undefined;

function tablesOf(schema: Record<string, unknown>): Map<string, Table> {
  const tables = new Map<string, Table>();
  for (const value of Object.values(schema)) {
    try {
      if (isTable(value)) tables.set(getTableName(value), value);
    } catch {
      // not a table (a helper the schema exports)
    }
  }
  return tables;
}

type Shape = { columns: Record<string, { notNull: boolean; primary: boolean }>; indexes: string[]; primaryKeys: string[][] };

function shapeOf(
  table: Table,
  config: { indexes: { config: { name?: string } }[]; primaryKeys: { columns: { name: string }[] }[] },
): Shape {
  const columns: Shape['columns'] = {};
  for (const column of Object.values(getTableColumns(table))) columns[column.name] = { notNull: column.notNull, primary: column.primary };
  return {
    columns,
    indexes: config.indexes.map((index) => index.config.name ?? '').sort(),
    primaryKeys: config.primaryKeys.map((key) => key.columns.map((column) => column.name)),
  };
}

/**
 * What PostgreSQL has for what SQLite's rowid gives: an insertion order (seq), the writing
 * transaction that makes a read in that order safe with several writers, and the indexes that
 * replace walking rowid when pruning.
 */
const POSTGRES_ONLY: Record<string, { columns?: string[]; indexes?: string[] }> = {
  status_events: { columns: ['seq', 'writtenBy'], indexes: ['status_events_seq_uq', 'status_events_written_idx'] },
  idempotency_keys: { indexes: ['idempotency_keys_created_idx'] },
  inbox_sessions: { indexes: ['inbox_sessions_expires_idx'] },
};

/** The shape without the table's PostgreSQL-only columns and indexes, each of which must be there. */
function withoutPostgresOnly(name: string, shape: Shape): Shape {
  const extra = POSTGRES_ONLY[name] ?? {};
  for (const column of extra.columns ?? []) expect(shape.columns, name).toHaveProperty(column);
  for (const index of extra.indexes ?? []) expect(shape.indexes, name).toContain(index);
  const columns = Object.fromEntries(Object.entries(shape.columns).filter(([column]) => !extra.columns?.includes(column)));
  return { ...shape, columns, indexes: shape.indexes.filter((index) => !extra.indexes?.includes(index)) };
}

describe('the PostgreSQL schema', () => {
  it('has every table, column, key and index of the SQLite schema, and only the extras it needs (its own coordination tables among them)', () => {
    const sqlite = tablesOf(sqliteSchema);
    const postgres = tablesOf(postgresSchema);
    for (const name of postgresSchema.POSTGRES_ONLY_TABLES) postgres.delete(name);
    expect([...postgres.keys()].sort()).toEqual([...sqlite.keys()].sort());
    for (const [name, table] of sqlite) {
      const twin = postgres.get(name)!;
      expect(withoutPostgresOnly(name, shapeOf(twin, pgTableConfig(twin as never))), name).toEqual(
        shapeOf(table, sqliteTableConfig(table as never)),
      );
    }
  });

  describe('on a real PostgreSQL', () => {
    let server: RunningPostgres;
    let client: pg.Client;

    beforeAll(async () => {
      server = await startPostgres();
      client = new pg.Client({ connectionString: server.url });
      await client.connect();
    }, 120_000);

    afterAll(async () => {
      await client?.end();
      await server?.stop();
    });

    it('builds it with the committed migrations, and stores and reads rows of the same shape', async () => {
      const db = drizzle({ client, schema: postgresSchema, casing: 'snake_case' });
      await migrate(db, { migrationsFolder: fileURLToPath(new URL('../../migrations/postgres', import.meta.url)) });

      const { rows } = await client.query<{ table_name: string }>(
        "select table_name from information_schema.tables where table_schema = 'public' order by table_name",
      );
      expect(rows.map((row) => row.table_name)).toEqual([...tablesOf(sqliteSchema).keys(), ...postgresSchema.POSTGRES_ONLY_TABLES].sort());

      const now = Date.now();
      await db
        .insert(postgresSchema.accounts)
        .values({ id: 'acc_1', email: 'a@example.com', plan: 'sapphire', apiKeyId: 'key_1', apiSecretHash: 'h', createdAt: now });
      await db.insert(postgresSchema.contacts).values({
        id: 'c1',
        accountId: 'acc_1',
        phone: '+14155550100',
        firstName: 'Ada',
        lastName: 'Lovelace',
        tags: ['vip'],
        customVariables: { plan: 'gold' },
        createdAt: now,
      });
      await db.insert(postgresSchema.mediaObjects).values({
        id: 'm1',
        accountId: 'acc_1',
        sourceUrl: 'https://cdn.example.com/a.png',
        contentType: 'image/png',
        bytes: Buffer.from([0x89, 0x50, 0x4e, 0x47]),
        byteLength: 4,
        createdAt: now,
      });
      const [contact] = await db.select().from(postgresSchema.contacts);
      expect(contact).toMatchObject({ tags: ['vip'], customVariables: { plan: 'gold' }, optedOut: false, createdAt: now, deletedAt: null });
      const [media] = await db.select().from(postgresSchema.mediaObjects);
      expect(media!.bytes).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    });
  });
});
