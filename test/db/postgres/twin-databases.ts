import { getTableName, is, type Table } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type postgres from 'postgres';
import type { PgDb } from '../../../src/db/postgres/db.ts';
import { messageQueries } from '../../../src/db/postgres/queries/messages.ts';
import * as pgSchema from '../../../src/db/postgres/schema.ts';
import * as sqliteSchema from '../../../src/db/schema.ts';
import { closeDatabase, type Db, migrateDatabase, openDatabase } from '../../../src/db/sqlite/connection.ts';
import { createSqliteQueries } from '../../../src/db/sqlite/queries.ts';
import type { Queries } from '../../../src/db/store.ts';
import { freshPostgresDatabase, type TestPostgresDatabase } from '../../helpers/postgres-database.ts';

/**
 * One PostgreSQL database per test file (on the run's server) beside a fresh in-memory SQLite per
 * test, both migrated, so a test makes the same calls on the SQLite query module (the spec) and
 * on its PostgreSQL twin.
 */
export type TwinDatabases = {
  pg: PgDb;
  sqlite: Db;
  sqliteQueries: ReturnType<typeof createSqliteQueries>;
  /** The PostgreSQL message queries, for tests of other modules to store messages with. */
  pgMessages: Queries['messages'];
  /** Inserts the same rows into the table of this SQL name in both databases. */
  seed(table: string, rows: Record<string, unknown>[]): Promise<void>;
};

function tablesByName(schema: Record<string, unknown>, kind: typeof PgTable | typeof SQLiteTable): Map<string, Table> {
  const tables = Object.values(schema).filter((value) => is(value, kind)) as Table[];
  return new Map(tables.map((table) => [getTableName(table), table]));
}
const pgTables = tablesByName(pgSchema, PgTable);
const sqliteTables = tablesByName(sqliteSchema, SQLiteTable);
const tableNames = [...pgTables.keys()].map((name) => `"${name}"`);

export function twinDatabases() {
  let database: TestPostgresDatabase;
  let client: postgres.Sql;
  let resetStatements: string;
  const twins = {} as TwinDatabases;

  async function start(): Promise<void> {
    database = await freshPostgresDatabase();
    client = database.db.$client;
    twins.pg = database.db;
    const sequences = await client<{ name: string }[]>`
      select pg_get_serial_sequence(quote_ident(table_name), column_name) as name from information_schema.columns
        where table_schema = 'public' and column_default like 'nextval%'`;
    resetStatements = [
      'set session_replication_role = replica;',
      ...tableNames.map((name) => `delete from ${name};`),
      ...sequences.map(({ name }) => `alter sequence ${name} restart;`),
      'set session_replication_role = origin;',
    ].join(' ');
  }

  async function reset(): Promise<void> {
    // TRUNCATE makes new files for every table and index (a quarter second); the few rows a test
    // leaves go faster by DELETE, foreign keys unchecked, and sequences restarted.
    await client.unsafe(resetStatements);
    if (twins.sqlite) closeDatabase(twins.sqlite);
    twins.sqlite = openDatabase(':memory:');
    migrateDatabase(twins.sqlite);
    twins.sqliteQueries = createSqliteQueries(twins.sqlite);
    twins.pgMessages = messageQueries(twins.pg);
    twins.seed = async (table, rows) => {
      twins.sqlite
        .insert(sqliteTables.get(table) as never)
        .values(rows as never)
        .run();
      await twins.pg.insert(pgTables.get(table) as never).values(rows as never);
    };
  }

  async function stop(): Promise<void> {
    await database?.close();
  }

  return { twins, start, reset, stop };
}
