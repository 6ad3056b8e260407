/**
 * PostgreSQL databases for the tests: one server per test process, started at the first request
 * and stopped after the file's tests, and a new database for each test, copied from a template
 * migrated once (a copy takes milliseconds; migrating takes a second).
 */
import postgres from 'postgres';
import { afterAll } from 'vitest';
import { migratePostgres, openPostgres, type PgPool } from '../../src/db/postgres/connection.ts';
import { type RunningPostgres, startPostgres } from './postgres.ts';

export type TestPostgresDatabase = { url: string; db: PgPool; close(): Promise<void> };

type Server = { running: RunningPostgres; admin: postgres.Sql };

const TEMPLATE = 'textrelay_template';

let server: Promise<Server> | undefined;
let template: Promise<void> | undefined;
let created = 0;

/** The URL of `database` on the shared server, as its superuser. */
export async function postgresUrl(database = 'postgres'): Promise<string> {
  const url = new URL((await shared()).running.url);
  url.pathname = `/${database}`;
  return url.toString();
}

function shared(): Promise<Server> {
  server ??= (async () => {
    const running = await startPostgres();
    return { running, admin: postgres(running.url, { max: 1, onnotice: () => {} }) };
  })();
  return server;
}

/** A new database migrated to this build's schema, for one test; `close` closes its pool (the server's end removes it). */
export async function freshPostgresDatabase(): Promise<TestPostgresDatabase> {
  template ??= (async () => {
    await (await shared()).admin.unsafe(`create database ${TEMPLATE}`);
    const { db, close } = await openPostgres(await postgresUrl(TEMPLATE), { poolSize: 2 });
    await migratePostgres(db);
    // A template copies only while nobody is connected to it.
    await close();
  })();
  await template;
  return createDatabase(TEMPLATE);
}

/** A new database without any table, for tests of migrating. */
export function emptyPostgresDatabase(): Promise<TestPostgresDatabase> {
  return createDatabase('template0');
}

async function createDatabase(from: string): Promise<TestPostgresDatabase> {
  const { admin } = await shared();
  const name = `test_${process.pid}_${++created}`;
  // The default strategy (through the WAL) takes a tenth of a second; `file_copy` and `drop database` wait for a checkpoint.
  await admin.unsafe(`create database ${name} template ${from}`);
  const url = await postgresUrl(name);
  return { url, ...(await openPostgres(url, { poolSize: 4 })) };
}

afterAll(async () => {
  if (!server) return;
  const { running, admin } = await server;
  server = undefined;
  template = undefined;
  await admin.end({ timeout: 0 });
  await running.stop();
});
