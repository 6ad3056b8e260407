import { asc, count, getTableColumns, getTableName, gt, sql } from 'drizzle-orm';
import type postgres from 'postgres';
import { StartupError } from '../../startup-error.ts';
import * as sqliteSchema from '../schema.ts';
import type { Db } from '../sqlite/connection.ts';
import type { PgPool } from './connection.ts';
import { type CopyPlan, columnSqlName, planCopy, type TableCopy } from './copy-plan.ts';
import * as postgresSchema from './schema.ts';

/** How far the copy of one table is: reported after each batch, and once for a table without rows. */
export type CopyProgress = { table: string; copied: number; total: number };

export type CopyOptions = {
  onProgress?: (progress: CopyProgress) => void;
  /** Rows read and inserted at once (default 1,000; fewer for a table of bytes or of many columns). */
  batchRows?: number;
};

export type CopySummary = { tables: { table: string; rows: number }[] };

/** PostgreSQL takes at most 65,535 parameters in one statement: one per column of each row inserted. */
const MAX_PARAMETERS = 65_535;
const DEFAULT_BATCH_ROWS = 1_000;
/** A media row may hold 5 MB: 16 of them keep a batch under 100 MB. */
const BYTES_BATCH_ROWS = 16;

/** The key each row's rowid is read under, beside its columns (only the columns are inserted). */
const ROWID = '__rowid';

const LEFT_EMPTY = 'nothing was copied, the PostgreSQL database is left as it was';

type Tx = postgres.TransactionSql;

/**
 * Copies every table of the migrated SQLite database `source` into the migrated, empty PostgreSQL
 * database `target`, in one PostgreSQL transaction (a failure leaves the target as empty as it
 * was) and from one SQLite read snapshot. Rows go over in batches by rowid, so memory holds one
 * batch whatever the size of the file. The two schemas convert the values (integer booleans to
 * boolean, JSON text to jsonb, blobs to bytea); sequences are moved past the copied ids, and
 * each table's row count is compared before committing. The inserts go through postgres.js
 * itself: drizzle takes 0.4 s to build the statement of a batch of 1,000 messages.
 */
export async function copySqliteToPostgres(source: Db, target: PgPool, options: CopyOptions = {}): Promise<CopySummary> {
  const plan = planCopy(sqliteSchema, postgresSchema);
  const client = source.$client;
  // A read transaction: its first read fixes the snapshot every later batch reads from.
  client.exec('BEGIN');
  try {
    const totals = new Map(plan.tables.map((table) => [table.name, countSqliteRows(source, table)]));
    return await target.$client.begin(async (tx) => {
      await refuseNonEmptyTarget(tx, plan, target.$client.options.database);
      for (const table of plan.tables) await copyTable(source, tx, table, totals.get(table.name)!, options);
      for (const table of plan.tables) await moveSequencesPastCopiedIds(source, tx, table);
      await checkRowCounts(tx, plan, totals);
      return { tables: plan.tables.map((table) => ({ table: table.name, rows: totals.get(table.name)! })) };
    });
  } finally {
    if (client.inTransaction) client.exec('COMMIT');
  }
}

function countSqliteRows(source: Db, table: TableCopy): number {
  return source.select({ rows: count() }).from(table.sqlite).get()!.rows;
}

async function countPostgresRows(tx: Tx, table: string): Promise<number> {
  const [row] = await tx<{ rows: string }[]>`select count(*) as rows from ${tx(table)}`;
  return Number(row!.rows);
}

/** One line naming the tables that hold rows: copying into them would mix two histories, or collide. */
async function refuseNonEmptyTarget(tx: Tx, plan: CopyPlan, database: string): Promise<void> {
  const holding: string[] = [];
  for (const name of [...plan.tables.map((table) => table.name), ...plan.postgresOnly.map((table) => getTableName(table))]) {
    const [row] = await tx<{ held: boolean }[]>`select exists (select from ${tx(name)}) as held`;
    if (row!.held) holding.push(name);
  }
  if (holding.length > 0) {
    throw new StartupError(
      `the PostgreSQL database "${database}" already holds data (in ${holding.join(', ')}); migrate-data copies only into an empty database`,
    );
  }
}

function rowsPerBatch(table: TableCopy, batchRows: number): number {
  if (table.holdsBytes) return Math.min(batchRows, BYTES_BATCH_ROWS);
  return Math.min(batchRows, Math.floor(MAX_PARAMETERS / table.columns.length));
}

/** A batch's rows as PostgreSQL takes them: keyed by column name, each value as its PostgreSQL column sends it (JSON as text). */
function toPostgresRows(table: TableCopy, rows: Record<string, unknown>[]): Record<string, postgres.ParameterOrJSON<never>>[] {
  const columns = getTableColumns(table.postgres);
  const converters = table.columns.map((key) => [key, columnSqlName(columns[key]!), columns[key]!] as const);
  return rows.map((row) => {
    const converted: Record<string, postgres.ParameterOrJSON<never>> = {};
    for (const [key, name, column] of converters) {
      const value = row[key];
      converted[name] = value === null || value === undefined ? null : (column.mapToDriverValue(value) as postgres.SerializableParameter);
    }
    return converted;
  });
}

async function copyTable(source: Db, tx: Tx, table: TableCopy, total: number, options: CopyOptions): Promise<void> {
  const sqliteColumns = getTableColumns(table.sqlite);
  const selection = Object.fromEntries(table.columns.map((key) => [key, sqliteColumns[key]!]));
  const postgresColumns = getTableColumns(table.postgres);
  const columnNames = table.columns.map((key) => columnSqlName(postgresColumns[key]!));
  const rowid = sql<number>`_rowid_`;
  const limit = rowsPerBatch(table, options.batchRows ?? DEFAULT_BATCH_ROWS);
  let copied = 0;
  let after = 0;
  if (total === 0) options.onProgress?.({ table: table.name, copied, total });
  for (;;) {
    let batch: Record<string, unknown>[];
    try {
      batch = source
        .select({ ...selection, [ROWID]: rowid })
        .from(table.sqlite)
        .where(gt(rowid, after))
        .orderBy(asc(rowid))
        .limit(limit)
        .all();
    } catch (error) {
      throw new StartupError(`reading ${table.name} after rowid ${after} failed: ${causeOf(error)}; ${LEFT_EMPTY}`);
    }
    if (batch.length === 0) return;
    const first = batch[0]![ROWID] as number;
    after = batch.at(-1)![ROWID] as number;
    try {
      await tx`insert into ${tx(table.name)} ${tx(toPostgresRows(table, batch), columnNames)}`;
    } catch (error) {
      throw new StartupError(`copying ${table.name} failed in the rows of rowid ${first} to ${after}: ${causeOf(error)}; ${LEFT_EMPTY}`);
    }
    copied += batch.length;
    options.onProgress?.({ table: table.name, copied, total });
  }
}

/**
 * Sets each sequence of a copied column (the bigserial ids) past the largest id copied, and past
 * the largest SQLite ever handed out (`sqlite_sequence`, for AUTOINCREMENT keys), so a new row
 * neither collides with a copied one nor reuses an id a client has seen (an event stream's
 * Last-Event-ID). Sequence columns PostgreSQL alone has were filled from their sequence already.
 */
async function moveSequencesPastCopiedIds(source: Db, tx: Tx, table: TableCopy): Promise<void> {
  const sqliteColumns = getTableColumns(table.sqlite);
  const postgresColumns = getTableColumns(table.postgres);
  for (const key of table.columns) {
    const column = columnSqlName(postgresColumns[key]!);
    const [found] = await tx<{ sequence: string | null }[]>`select pg_get_serial_sequence(${`"${table.name}"`}, ${column}) as sequence`;
    if (!found?.sequence) continue;
    const handedOut = (sqliteColumns[key] as { autoIncrement?: boolean }).autoIncrement ? sqliteSequence(source, table.name) : 0;
    await tx`
      select setval(${found.sequence}::regclass, past.id) from (
        select greatest((select max(${tx(column)}) from ${tx(table.name)}), ${handedOut}::bigint) as id
      ) as past where past.id >= 1`;
  }
}

/** The largest id SQLite has handed out in an AUTOINCREMENT table, deleted rows included. */
function sqliteSequence(source: Db, table: string): number {
  const row = source.$client.prepare('select seq from sqlite_sequence where name = ?').get(table) as { seq: number } | undefined;
  return row?.seq ?? 0;
}

async function checkRowCounts(tx: Tx, plan: CopyPlan, totals: Map<string, number>): Promise<void> {
  const differing: string[] = [];
  for (const table of plan.tables) {
    const copied = await countPostgresRows(tx, table.name);
    const expected = totals.get(table.name)!;
    if (copied !== expected) differing.push(`${table.name} has ${expected} rows in SQLite and ${copied} in PostgreSQL`);
  }
  if (differing.length > 0) throw new StartupError(`the copy is incomplete: ${differing.join(', ')}; ${LEFT_EMPTY}`);
}

/** The database's own words, without the statement and parameters a wrapper may repeat (a batch makes them huge). */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause ?? error;
  return cause instanceof Error ? cause.message : String(cause);
}
