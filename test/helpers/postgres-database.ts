/**
 * PostgreSQL databases for the tests, on the one server the global setup started for the whole
 * run (test/helpers/postgres-global-setup.ts): a new database for each test, copied from the
 * template migrated once (migrating takes a second; a copy a tenth, more on a busy machine). A
 * test's databases are dropped once closed, the rest after the file's tests; the test apps'
 * databases are emptied and reused instead (see `reusedPostgresDatabase`).
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { inject } from 'vitest';
import { openPostgres, type PgPool } from '../../src/db/postgres/connection.ts';
import { databaseUrl, TEMPLATE_DATABASE } from './postgres.ts';

export type TestPostgresDatabase = { url: string; db: PgPool; close(): Promise<void> };

let admin: postgres.Sql | undefined;
/** Every database this process made and has not dropped yet, with how its pool closes. */
const open = new Map<string, () => Promise<void>>();
const drops: Promise<unknown>[] = [];
/** Test apps' databases closed since, to be emptied for the next test app. */
const reusable: string[] = [];
let emptying: Promise<string> | undefined;

function serverUrl(): string {
  const url = inject('postgresServerUrl');
  if (!url) throw new Error('no PostgreSQL for the tests: run them through vitest.config.ts, whose global setup starts it');
  return url;
}

function administrator(): postgres.Sql {
  admin ??= postgres(serverUrl(), { max: 2, onnotice: () => {} });
  return admin;
}

/** The URL of `database` on the shared server, as its superuser. */
export async function postgresUrl(database = 'postgres'): Promise<string> {
  return databaseUrl(serverUrl(), database);
}

/** A new database migrated to this build's schema, for one test; `close` closes its pool and drops it. */
export function freshPostgresDatabase(): Promise<TestPostgresDatabase> {
  return createDatabase(TEMPLATE_DATABASE);
}

/** A new database without any table, for tests of migrating. */
export function emptyPostgresDatabase(): Promise<TestPostgresDatabase> {
  return createDatabase('template0');
}

/**
 * A database like `freshPostgresDatabase`'s, for a test app (whose only user is the store, which
 * changes rows, never the schema): once closed it is emptied and handed to the next test app of
 * this process, as deleting the few rows a test leaves takes milliseconds where a copy takes
 * half a second on a loaded machine.
 */
export async function reusedPostgresDatabase(): Promise<TestPostgresDatabase> {
  const name = reusable.pop();
  if (name === undefined) return createDatabase(TEMPLATE_DATABASE, { reuse: true });
  const database = await openDatabase(name, { reuse: true });
  await database.db.$client.unsafe(await emptyingStatements(database.db.$client));
  return database;
}

/** Deletes every row, foreign keys unchecked, and restarts the sequences (TRUNCATE makes new files: slower). */
function emptyingStatements(client: postgres.Sql): Promise<string> {
  emptying ??= (async () => {
    const tables = await client<{ name: string }[]>`select tablename as name from pg_tables where schemaname = 'public'`;
    const sequences = await client<{ name: string }[]>`select sequencename as name from pg_sequences where schemaname = 'public'`;
    return [
      'set session_replication_role = replica;',
      ...tables.map(({ name }) => `delete from "${name}";`),
      ...sequences.map(({ name }) => `alter sequence "${name}" restart;`),
      'set session_replication_role = origin;',
    ].join(' ');
  })();
  return emptying;
}

async function createDatabase(from: string, options: { reuse?: boolean } = {}): Promise<TestPostgresDatabase> {
  // Workers of one run share the server: the process id alone may come back in a later worker.
  const name = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
  // The default strategy (through the WAL) is the quicker; `file_copy` waits for a checkpoint.
  await administrator().unsafe(`create database ${name} template ${from}`);
  return openDatabase(name, options);
}

async function openDatabase(name: string, { reuse = false }: { reuse?: boolean }): Promise<TestPostgresDatabase> {
  const url = await postgresUrl(name);
  const connection = await openPostgres(url, { poolSize: 4 });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      open.delete(name);
      await connection.close();
      if (reuse) reusable.push(name);
      // Dropping waits on the server's housekeeping: the test goes on meanwhile, the file's end waits.
      else
        drops.push(
          administrator()
            .unsafe(`drop database if exists ${name}`)
            .catch(() => {}),
        );
    })();
    return closing;
  };
  open.set(name, close);
  return { url, db: connection.db, close };
}

/** Closes and drops every database this process still holds: after each test file (test/helpers/per-file-hooks.ts). */
export async function closeEveryPostgresDatabase(): Promise<void> {
  await Promise.all([...open.values()].map((close) => close()));
  drops.push(
    ...reusable.splice(0).map((name) =>
      administrator()
        .unsafe(`drop database if exists ${name}`)
        .catch(() => {}),
    ),
  );
  await Promise.all(drops.splice(0));
  await admin?.end({ timeout: 5 });
  admin = undefined;
}
