import { type Column, getTableColumns, getTableName, is, type Table } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { SQLiteTable } from 'drizzle-orm/sqlite-core';

/** One table to copy: its SQLite and PostgreSQL twins, and the columns (by schema key) both have. */
export type TableCopy = {
  name: string;
  sqlite: SQLiteTable;
  postgres: PgTable;
  columns: string[];
  /** Bytes in a column (media): read a few rows at a time, as one row may hold megabytes. */
  holdsBytes: boolean;
};

export type CopyPlan = {
  /** In foreign-key order: a table comes after every table it refers to. */
  tables: TableCopy[];
  /** PostgreSQL tables with no SQLite twin: left empty. */
  postgresOnly: PgTable[];
};

type Schema = Record<string, unknown>;

function tablesOf<T extends Table>(schema: Schema, kind: typeof PgTable | typeof SQLiteTable): Map<string, T> {
  const tables = Object.values(schema).filter((value) => is(value, kind)) as T[];
  return new Map(tables.map((table) => [getTableName(table), table]));
}

/** The column's name in SQL, as the schemas' snake_case casing writes it. */
export function columnSqlName(column: Column): string {
  return column.keyAsName ? toSnakeCase(column.name) : column.name;
}

/** Every PostgreSQL table after the tables its foreign keys name, so inserting in this order never misses a parent. */
function inForeignKeyOrder(tables: Map<string, PgTable>): string[] {
  const ordered: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, path: string[]) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting')
      throw new Error(`the PostgreSQL tables refer to each other in a cycle: ${[...path, name].join(' -> ')}`);
    state.set(name, 'visiting');
    for (const key of getTableConfig(tables.get(name)!).foreignKeys) {
      const parent = getTableName(key.reference().foreignTable);
      if (parent !== name && tables.has(parent)) visit(parent, [...path, name]);
    }
    state.set(name, 'done');
    ordered.push(name);
  };
  for (const name of [...tables.keys()].sort()) visit(name, []);
  return ordered;
}

/**
 * What copying a database of `sqliteSchema` into one of `postgresSchema` takes, read from the
 * schemas so a table added to both is copied without a list to edit. Refuses a SQLite table or
 * column without a PostgreSQL twin (its rows would be lost), and a PostgreSQL-only column that
 * copied rows could not fill (NOT NULL without a default).
 */
export function planCopy(sqliteSchema: Schema, postgresSchema: Schema): CopyPlan {
  const sqliteTables = tablesOf<SQLiteTable>(sqliteSchema, SQLiteTable);
  const postgresTables = tablesOf<PgTable>(postgresSchema, PgTable);
  const problems: string[] = [];
  for (const name of sqliteTables.keys()) {
    if (!postgresTables.has(name)) problems.push(`table ${name} has no PostgreSQL twin`);
  }
  const tables: TableCopy[] = [];
  for (const name of inForeignKeyOrder(postgresTables)) {
    const sqlite = sqliteTables.get(name);
    if (sqlite === undefined) continue;
    const postgres = postgresTables.get(name)!;
    const sqliteColumns = getTableColumns(sqlite);
    const postgresColumns = getTableColumns(postgres);
    for (const key of Object.keys(sqliteColumns)) {
      if (!(key in postgresColumns)) problems.push(`column ${name}.${columnSqlName(sqliteColumns[key]!)} has no PostgreSQL twin`);
    }
    for (const [key, column] of Object.entries(postgresColumns)) {
      if (!(key in sqliteColumns) && column.notNull && !column.hasDefault && column.generatedIdentity === undefined) {
        problems.push(
          `PostgreSQL column ${name}.${columnSqlName(column)} is NOT NULL without a default, and SQLite has nothing to fill it with`,
        );
      }
    }
    const columns = Object.keys(sqliteColumns).filter((key) => key in postgresColumns);
    const holdsBytes = columns.some((key) => sqliteColumns[key]!.getSQLType() === 'blob');
    tables.push({ name, sqlite, postgres, columns, holdsBytes });
  }
  if (problems.length > 0) throw new Error(`cannot copy SQLite into PostgreSQL: ${problems.join('; ')}`);
  const postgresOnly = [...postgresTables].filter(([name]) => !sqliteTables.has(name)).map(([, table]) => table);
  return { tables, postgresOnly };
}
