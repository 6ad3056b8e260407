import { getTableName } from 'drizzle-orm';
import { bigint, bigserial, getTableConfig, pgTable, text } from 'drizzle-orm/pg-core';
import { integer, sqliteTable, text as sqliteText } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import { planCopy } from '../../../src/db/postgres/copy-plan.ts';
import * as postgresSchema from '../../../src/db/postgres/schema.ts';
import * as sqliteSchema from '../../../src/db/schema.ts';
import { makeTestApp } from '../../helpers/app.ts';
import { rowCounts } from '../../helpers/row-counts.ts';

const sqliteAccounts = sqliteTable('accounts', { id: sqliteText().primaryKey(), createdAt: integer().notNull() });
const sqliteNotes = sqliteTable('notes', {
  id: integer().primaryKey({ autoIncrement: true }),
  accountId: sqliteText()
    .notNull()
    .references(() => sqliteAccounts.id),
});
const pgAccounts = pgTable('accounts', { id: text().primaryKey(), createdAt: bigint({ mode: 'number' }).notNull() });
const pgNotes = pgTable('notes', {
  id: bigserial({ mode: 'number' }).primaryKey(),
  accountId: text()
    .notNull()
    .references(() => pgAccounts.id),
});

describe('the copy plan, read from the two schemas', () => {
  it('copies every table of the SQLite database, each after the tables it refers to', async () => {
    const plan = planCopy(sqliteSchema, postgresSchema);
    const names = plan.tables.map((table) => table.name);
    expect([...names].sort()).toEqual(Object.keys(await rowCounts(makeTestApp())).sort());
    for (const [position, table] of plan.tables.entries()) {
      for (const key of getTableConfig(table.postgres).foreignKeys) {
        expect(names.indexOf(getTableName(key.reference().foreignTable)), `${table.name} after its parent`).toBeLessThan(position);
      }
    }
    expect(plan.tables.find((table) => table.name === 'media_objects')?.holdsBytes).toBe(true);
  });

  it('orders by foreign key, whatever order the schema declares its tables in', () => {
    const plan = planCopy({ sqliteNotes, sqliteAccounts }, { pgNotes, pgAccounts });
    expect(plan.tables.map((table) => table.name)).toEqual(['accounts', 'notes']);
    expect(plan.tables[1]!.columns).toEqual(['id', 'accountId']);
  });

  it('refuses a SQLite table or column that PostgreSQL has no twin of: its rows would be lost', () => {
    expect(() => planCopy({ sqliteAccounts, sqliteNotes }, { pgAccounts })).toThrow('table notes has no PostgreSQL twin');
    const narrower = pgTable('accounts', { id: text().primaryKey() });
    expect(() => planCopy({ sqliteAccounts }, { narrower })).toThrow('column accounts.created_at has no PostgreSQL twin');
  });

  it('leaves a PostgreSQL-only table empty, and fills a PostgreSQL-only column with its default', () => {
    const rateLimits = pgTable('rate_limits', { key: text().primaryKey() });
    const wider = pgTable('accounts', {
      id: text().primaryKey(),
      createdAt: bigint({ mode: 'number' }).notNull(),
      region: text().notNull().default('eu'),
      seq: bigserial({ mode: 'number' }),
      note: text(),
    });
    const plan = planCopy({ sqliteAccounts }, { wider, rateLimits });
    expect(plan.tables.map((table) => [table.name, table.columns])).toEqual([['accounts', ['id', 'createdAt']]]);
    expect(plan.postgresOnly.map((table) => getTableName(table))).toEqual(['rate_limits']);
  });

  it('refuses a PostgreSQL-only column the copied rows could not fill', () => {
    const stricter = pgTable('accounts', {
      id: text().primaryKey(),
      createdAt: bigint({ mode: 'number' }).notNull(),
      region: text().notNull(),
    });
    expect(() => planCopy({ sqliteAccounts }, { stricter })).toThrow(
      'PostgreSQL column accounts.region is NOT NULL without a default, and SQLite has nothing to fill it with',
    );
  });
});
