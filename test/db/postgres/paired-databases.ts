/**
 * The two databases a PostgreSQL query module is held against: one PostgreSQL database per test
 * file (on the run's server, emptied before each test) and a fresh in-memory SQLite per test,
 * each with the same account, so the same calls can be made on both and their answers compared.
 */
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { PgDb } from '../../../src/db/postgres/db.ts';
import * as schema from '../../../src/db/postgres/schema.ts';
import { type Db, migrateDatabase, openDatabase } from '../../../src/db/sqlite/connection.ts';
import { createSqliteQueries, type SqliteQueries } from '../../../src/db/sqlite/queries.ts';
import { freshPostgresDatabase, type TestPostgresDatabase } from '../../helpers/postgres-database.ts';

export const ACCOUNT = 'acct_1';
export const OTHER_ACCOUNT = 'acct_2';

export type PostgresForTests = {
  /** A pool of its own connections to the test file's PostgreSQL: each call opens one. */
  connect(max?: number): PgDb;
  /** The pool every test shares, emptied and seeded before each test. */
  readonly db: PgDb;
};

/** Starts the file's PostgreSQL; before each test it is emptied and given the accounts again. */
export function usePostgres(): PostgresForTests {
  let database: TestPostgresDatabase;
  const clients: postgres.Sql[] = [];
  let shared: PgDb;

  function connect(max = 4): PgDb {
    const client = postgres(database.url, { max, onnotice: () => {} });
    clients.push(client);
    return drizzle({ client, schema, casing: 'snake_case' });
  }

  beforeAll(async () => {
    database = await freshPostgresDatabase();
    shared = connect();
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.end()));
    await database?.close();
  });

  // A test that failed half-way leaves no transaction open to block the next one's truncate.
  afterEach(() => Promise.allSettled([...stillOpen].map((commit) => commit())));

  beforeEach(async () => {
    const tables = await shared.execute<{ name: string }>(sql`select tablename as name from pg_tables where schemaname = 'public'`);
    await shared.execute(sql.raw(`truncate ${tables.map((table) => `"${table.name}"`).join(', ')} restart identity cascade`));
    await shared.execute(sql.raw(accountsInsert()));
  });

  return {
    connect,
    get db() {
      return shared;
    },
  };
}

/** A migrated in-memory SQLite with the same accounts, and its queries. */
export function sqliteTwin(): { db: Db; queries: SqliteQueries } {
  const db = openDatabase(':memory:');
  migrateDatabase(db);
  db.$client.exec(accountsInsert());
  return { db, queries: createSqliteQueries(db) };
}

function accountsInsert(): string {
  return `insert into accounts (id, email, plan, api_key_id, api_secret_hash, webhook_secret, created_at) values
    ('${ACCOUNT}', 'one@example.com', 'blue', 'key_1', 'hash', 'whsec_one', 1),
    ('${OTHER_ACCOUNT}', 'two@example.com', 'blue', 'key_2', 'hash', null, 1)`;
}

type Module = Record<string, (...args: never[]) => unknown>;
type Answering<M extends Module> = { [K in keyof M]: (...args: Parameters<M[K]>) => Promise<Awaited<ReturnType<M[K]>>> };

/** A SQLite query module answering through promises, as the store hands it up: one story then runs on both. */
export function answering<M extends Module>(module: M): Answering<M> {
  return Object.fromEntries(
    Object.entries(module).map(([name, call]) => [name, async (...args: never[]) => call.apply(module, args)]),
  ) as unknown as Answering<M>;
}

const stillOpen = new Set<() => Promise<void>>();

/** A transaction left open until `commit`, for interleaving two connections' work by hand. */
export function heldTransaction(db: PgDb): { tx: Promise<PgDb>; commit(): Promise<void> } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let opened!: (tx: PgDb) => void;
  const tx = new Promise<PgDb>((resolve) => {
    opened = resolve;
  });
  const done = db.transaction(async (inside) => {
    opened(inside as unknown as PgDb);
    await gate;
  });
  async function commit() {
    stillOpen.delete(commit);
    release();
    await done;
  }
  stillOpen.add(commit);
  return { tx, commit };
}

/** Resolves once some session waits for a lock another one holds. */
export async function someoneWaitsForALock(db: PgDb): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    const [row] = await db.execute<{ waiting: string }>(
      sql`select count(*) as waiting from pg_stat_activity where wait_event_type = 'Lock'`,
    );
    if (Number(row!.waiting) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('nobody waits for a lock');
}
